// What the server plays on its own (issue 37), in words: why a move was forced or an order
// dropped (a reason code of the game's, with its parameters), a command played, a piece of
// the seat's news, an occasion to answer ahead. The same sentences as the turn mail
// (src/service/delivery/render/pace.rs), so the page and the mail say the same thing.
import type { Schemas } from '../api/client';
import type { Lang } from '../i18n';

export type Reason = Schemas['Reason'];
export type News = Schemas['News'];

type Params = Record<string, unknown>;

const p = (params: Params, name: string): string => {
  const v = params[name];
  return v === undefined || v === null ? '?' : String(v);
};

const REASONS: Record<string, Record<Lang, (q: Params) => string>> = {
  no_cubes: { en: () => 'you hold no cubes', ja: () => 'キューブを持っていません' },
  cannot_outbid: {
    en: (q) => `you cannot outbid ${p(q, 'high_bid')} for ${p(q, 'company')} (you hold ${p(q, 'cubes')} cubes)`,
    ja: (q) => `${p(q, 'company')}の最高入札${p(q, 'high_bid')}を上回れません（キューブ${p(q, 'cubes')}個）`,
  },
  cannot_build: {
    en: (q) => `${p(q, 'company')} has no link it may build`,
    ja: (q) => `${p(q, 'company')}が敷設できる路線がありません`,
  },
  only_link: {
    en: (q) => `${p(q, 'link')} was the only link ${p(q, 'company')} could build`,
    ja: (q) => `${p(q, 'company')}が敷設できる路線は${p(q, 'link')}だけでした`,
  },
  only_path: { en: () => 'one transcontinental path was left', ja: () => '大陸横断ルートは一つしか残っていませんでした' },
  no_goods: {
    en: (q) => `${p(q, 'company')} can take no goods cube`,
    ja: (q) => `${p(q, 'company')}が取れる商品キューブがありません`,
  },
  only_goods: {
    en: (q) => `the goods cube of ${p(q, 'city')} was the only one ${p(q, 'company')} could take`,
    ja: (q) => `${p(q, 'company')}が取れる商品キューブは${p(q, 'city')}のものだけでした`,
  },
  outbid: {
    en: (q) => `the high bid for ${p(q, 'company')} reached ${p(q, 'high_bid')}, your limit`,
    ja: (q) => `${p(q, 'company')}の最高入札が上限の${p(q, 'high_bid')}に達しました`,
  },
  only_pass: {
    en: () => 'you hold no horseshoe, smith card or usable Kontor card',
    ja: () => '蹄鉄も鍛冶屋カードも使えるコントールカードもありません',
  },
  only_destination: {
    en: (q) => `${p(q, 'to')} was the only place the ghost ship could go`,
    ja: (q) => `幽霊船の行き先は${p(q, 'to')}だけでした`,
  },
  no_horseshoes: { en: () => 'you hold no horseshoe', ja: () => '蹄鉄を持っていません' },
  no_shares: { en: () => 'you hold no share card', ja: () => '株券カードを持っていません' },
  bids_before: {
    en: (q) => `${p(q, 'count')} players before you bid this round, more than your order allows`,
    ja: (q) => `このラウンドであなたより前に${p(q, 'count')}人が入札しました（指示の上限を超えています）`,
  },
  refused: {
    en: (q) => `the rules refused its move (${p(q, 'message')})`,
    ja: (q) => `ルールがその手を認めませんでした（${p(q, 'message')}）`,
  },
  undone: { en: () => 'an undo took back your moves', ja: () => '手の取り消しであなたの手が戻されました' },
  invalid_now: {
    en: (q) => `after an undo it no longer fits (${p(q, 'message')})`,
    ja: (q) => `手の取り消しの後、指示が合わなくなりました（${p(q, 'message')}）`,
  },
  seat_left: { en: () => 'you left the game', ja: () => 'ゲームから退出しました' },
};

/** The forced moves' reasons that name the seat, as told to everyone else. */
const THEIRS: Record<string, Record<Lang, (q: Params) => string>> = {
  no_cubes: { en: () => 'no cubes held', ja: () => 'キューブがありません' },
  cannot_outbid: {
    en: (q) => `cannot outbid ${p(q, 'high_bid')} for ${p(q, 'company')} (holds ${p(q, 'cubes')} cubes)`,
    ja: (q) => `${p(q, 'company')}の最高入札${p(q, 'high_bid')}を上回れません（キューブ${p(q, 'cubes')}個）`,
  },
  only_pass: { en: () => 'no horseshoe, smith card or usable Kontor card', ja: () => '蹄鉄も鍛冶屋カードも使えるコントールカードもありません' },
  no_horseshoes: { en: () => 'no horseshoe held', ja: () => '蹄鉄がありません' },
  no_shares: { en: () => 'no share card held', ja: () => '株券カードがありません' },
};

/** Why a move was forced, or an order dropped, in words: to the seat itself (`you`), or
 * about it to anyone else. */
export function reasonText(reason: Reason | null | undefined, lang: Lang, you = true): string {
  if (!reason) return '';
  const words = (you ? undefined : THEIRS[reason.code]) ?? REASONS[reason.code];
  return words ? words[lang]((reason.params ?? {}) as Params) : `(${reason.code})`;
}

type Command = { type: string } & Params;

const COMMANDS: Record<string, Record<Lang, (c: Params) => string>> = {
  'steel-driver/pass_pawn': { en: () => 'pass the pawn', ja: () => 'ポーンを渡す' },
  'steel-driver/open_auction': {
    en: (c) => `open an auction for ${p(c, 'company')} at ${p(c, 'bid')}`,
    ja: (c) => `${p(c, 'company')}の競りを${p(c, 'bid')}で始める`,
  },
  'steel-driver/bid': { en: (c) => `bid ${p(c, 'bid')}`, ja: (c) => `${p(c, 'bid')}を入札する` },
  'steel-driver/pass_bid': { en: () => 'pass in the auction', ja: () => '競りをパスする' },
  'steel-driver/build': { en: (c) => `build ${p(c, 'link')}`, ja: (c) => `${p(c, 'link')}を敷設する` },
  'steel-driver/pass_build': { en: () => 'build nothing', ja: () => '敷設をパスする' },
  'steel-driver/choose_path': { en: () => 'choose the transcontinental path', ja: () => '大陸横断ルートを選ぶ' },
  'steel-driver/take_goods': { en: (c) => `take the goods cube of ${p(c, 'city')}`, ja: (c) => `${p(c, 'city')}の商品キューブを取る` },
  'steel-driver/pass_delivery': { en: () => 'take no goods cube', ja: () => '商品キューブを取らない' },
  pass: { en: () => 'pass', ja: () => 'パスする' },
  use_kontor: { en: () => 'use the Kontor', ja: () => 'コントールを使う' },
  use_smith: { en: () => 'use the smith', ja: () => '鍛冶屋を使う' },
  bid: { en: () => 'place your sealed bid', ja: () => '封印入札をする' },
  return_shares: { en: () => 'return two share cards', ja: () => '株券カードを2枚戻す' },
  move: { en: (c) => `move the ghost ship to ${p(c, 'to')}`, ja: (c) => `幽霊船を${p(c, 'to')}へ動かす` },
  declare: { en: (c) => `declare ${p(c, 'to')}`, ja: (c) => `${p(c, 'to')}を宣言する` },
  make_offer: { en: (c) => `offer ${p(c, 'to')}`, ja: (c) => `${p(c, 'to')}を提案する` },
  accept_offer: { en: () => 'accept an offer', ja: () => '提案を受ける' },
  drop_out: { en: () => 'drop out of the extra round', ja: () => '延長戦から降りる' },
  take_income: { en: (c) => `take income (${p(c, 'colour')})`, ja: (c) => `収入を得る（${p(c, 'colour')}）` },
  decline_income: { en: () => 'take no income', ja: () => '収入を得ない' },
};

/** A command of a game of `kind` in words ("pass the pawn"). */
export function commandText(kind: string, command: unknown, lang: Lang): string {
  const c = (command ?? { type: '?' }) as Command;
  const words = COMMANDS[`${kind}/${c.type}`] ?? COMMANDS[c.type];
  return words ? words[lang](c) : String(c.type).replace(/_/g, ' ');
}

/** One piece of the seat's news as a sentence. */
export function newsLine(kind: string, news: News, lang: Lang): string {
  const command = commandText(kind, news.command, lang);
  const reason = reasonText(news.reason, lang);
  switch (news.kind) {
    case 'forced':
      return lang === 'ja' ? `${command}しかありませんでした：${reason}` : `You had to ${command}: ${reason}.`;
    case 'played':
      return lang === 'ja' ? `あなたの指示で指しました：${command}` : `Played by your order: ${command}.`;
    default:
      return lang === 'ja' ? `指示を取り消しました：${reason}。ご自身で決めてください。` : `Your order was dropped: ${reason}; decide yourself.`;
  }
}

/** An occasion to answer ahead (the game's key: `round/3/action`, `round/2/auctions`…). */
export function occasionText(occasion: string, lang: Lang): string {
  const parts = occasion.split('/');
  const round = parts[1] ?? '?';
  const what = parts[2];
  if (what === 'action') {
    return lang === 'ja'
      ? `第${round}ラウンドのラッキーナンバーが出ました。自分の番の前に行動を指示できます。`
      : `The lucky number of round ${round} is rolled: you may set your action before your turn.`;
  }
  if (what === 'declaration') {
    return lang === 'ja' ? '同点です。宣言する行き先を先に指示できます。' : 'A tie: you may set your declaration before your turn.';
  }
  if (what === 'auctions' || what === 'auction') {
    return lang === 'ja'
      ? `第${round}ラウンドの競りです。代理入札やパスを先に指示できます。`
      : `Round ${round}'s auctions: you may set proxy bids or passes before your turn.`;
  }
  if (occasion === 'delivery') {
    return lang === 'ja' ? '商品の出荷です。自動で取る指示を出せます。' : 'The goods phase: you may let your companies take goods automatically.';
  }
  return lang === 'ja' ? '自分の番の前に指示を出せます。' : 'You may set orders before your turn.';
}
