// One readable line per Steel Driver event, in English and Japanese, with seat names.
// Events carry city and link ids ("SEA-POR"), which are shown as they are.
import { count, type Lang } from '../../i18n';
import { COLOUR, COMPANIES, type Company, type Event, companyLabel, linkLabel } from './model';

type Name = (seat: number) => string;
type CompanyName = (c: Company) => string;
/** A line for each event type, typed by its event (so a new event type fails the type check). */
type Lines = { [T in Event['type']]: (e: Extract<Event, { type: T }>, name: Name, co: CompanyName) => string };

const money = (n: number) => `$${n}`;
const cubes = (n: number) => count(n, 'cube');

/** Payments summed per seat, in seat order: "Ann $550, Bob $480". */
function perSeat(payments: { seat: number; amount: number }[], name: Name, sep: string): string {
  const total = new Map<number, number>();
  for (const p of payments) total.set(p.seat, (total.get(p.seat) ?? 0) + p.amount);
  return [...total.entries()]
    .sort(([a], [b]) => a - b)
    .map(([seat, amount]) => `${name(seat)} ${money(amount)}`)
    .join(sep);
}

const EN: Lines = {
  game_started: (e, name) =>
    `The game is set up for ${e.seats} players; ${name(e.first_player)} holds the pawn.`,
  round_started: (e) =>
    `Round ${e.round} begins: every player receives ${cubes(e.cubes)}.`,
  pawn_passed: (e, name) => `${name(e.seat)} passes the pawn to ${name(e.to)}.`,
  auction_opened: (e, name, co) =>
    `${name(e.seat)} opens an auction for ${co(e.company)} with ${cubes(e.bid)}.`,
  bid_placed: (e, name) => `${name(e.seat)} bids ${cubes(e.bid)}.`,
  bid_passed: (e, name) => `${name(e.seat)} drops out of the auction.`,
  auction_won: (e, name, co) =>
    `${name(e.seat)} wins ${co(e.company)} for ${cubes(e.price)}; the pawn goes to ${name(e.pawn_to)}.`,
  auction_phase_ended: (e) =>
    e.all_sold ? 'Every company is sold: the auctions end.' : 'Nobody opens another auction: the auctions end.',
  link_built: (e, _, co) =>
    `${co(e.company)} builds ${linkLabel(e.link)} for ${cubes(e.cost)}` +
    (e.new_cities.length ? `, reaching ${e.new_cities.join(', ')} (+${money(e.profit)}).` : ' (no new city).'),
  transcontinental_tie: (e, _, co) =>
    `${co(e.company)} joins New York and San Francisco; its controller chooses among ${count(e.options.length, 'path')}.`,
  transcontinental_bonus: (e, _, co) =>
    `Transcontinental! ${co(e.company)} completes the line: ` +
    e.bonuses.map((b) => `${co(b.company)} +${money(b.amount)}`).join(', ') +
    '.',
  company_passed: (e, _, co) =>
    `${co(e.company)} passes${e.automatic ? ' (nobody controls it)' : ''}: place ${e.place + 1} in the next company order.`,
  dividends_paid: (e, name, co) =>
    `Round ${e.round} dividends: ` +
    (e.payments.map((p) => `${name(p.seat)} ${money(p.amount)} from ${co(p.company)}`).join(', ') || 'none') +
    '.',
  round_ended: (e, _, co) =>
    `Round ${e.round} ends; next company order: ${e.order.map(co).join(', ')}.`,
  boxes_emptied: (e, _, co) =>
    `The company boxes are emptied` +
    (e.cubes.length ? ` (${e.cubes.map((c) => `${co(c.company)} ${c.amount}`).join(', ')} cubes).` : '.'),
  goods_placed: (e) => `A goods cube is placed on each of ${count(e.cities.length, 'city', 'cities')} with track.`,
  delivery_control: (e, name, co) =>
    'Delivery: ' +
    e.controllers
      .map((s, i) => (s == null ? null : `${name(s)} delivers for ${co(COMPANIES[i]!)}`))
      .filter(Boolean)
      .join(', ') +
    '.',
  goods_taken: (e, _, co) =>
    `${co(e.company)} takes the ${COLOUR[e.colour].name.en} goods of ${e.city}.`,
  delivery_passed: (e, _, co) =>
    `${co(e.company)} takes no more goods${e.automatic ? ' (nobody delivers for it)' : ''}.`,
  final_profits: (e, _, co) =>
    'Final profits: ' + e.profits.map((p) => `${co(p.company)} ${money(p.profit)}`).join(', ') + '.',
  final_dividends_paid: (e, name) => `Final dividends (profit × shares): ${perSeat(e.payments, name, ', ') || 'none'}.`,
  game_ended: (e, name) =>
    `The game ends: ${e.scores.map((s, i) => `${name(i)} ${money(s)}`).join(', ')}. Winner: ${e.winners.map(name).join(', ')}.`,
};

const JA: Lines = {
  game_started: (e, name) =>
    `${e.seats}人でゲームを準備しました。スタートプレイヤー駒は${name(e.first_player)}。`,
  round_started: (e) =>
    `第${e.round}ラウンド開始：全員がキューブを${e.cubes}個受け取ります。`,
  pawn_passed: (e, name) => `${name(e.seat)}は駒を${name(e.to)}に渡しました。`,
  auction_opened: (e, name, co) =>
    `${name(e.seat)}が${co(e.company)}の競りを${e.bid}キューブで始めました。`,
  bid_placed: (e, name) => `${name(e.seat)}が${e.bid}キューブで入札。`,
  bid_passed: (e, name) => `${name(e.seat)}は競りから降りました。`,
  auction_won: (e, name, co) =>
    `${name(e.seat)}が${co(e.company)}を${e.price}キューブで落札。駒は${name(e.pawn_to)}へ。`,
  auction_phase_ended: (e) =>
    e.all_sold ? '全社が売れたので、競りの段階は終わりです。' : '誰も競りを始めなかったので、競りの段階は終わりです。',
  link_built: (e, _, co) =>
    `${co(e.company)}が${linkLabel(e.link)}を${e.cost}キューブで建設` +
    (e.new_cities.length ? `、${e.new_cities.join('・')}に到達（+${money(e.profit)}）。` : '（新しい都市なし）。'),
  transcontinental_tie: (e, _, co) =>
    `${co(e.company)}がニューヨークとサンフランシスコを結びました。支配者が${e.options.length}つのルートから選びます。`,
  transcontinental_bonus: (e, _, co) =>
    `大陸横断！${co(e.company)}が完成：` + e.bonuses.map((b) => `${co(b.company)} +${money(b.amount)}`).join('、') + '。',
  company_passed: (e, _, co) =>
    `${co(e.company)}はパス${e.automatic ? '（支配者なし）' : ''}。次の会社の順番では${e.place + 1}番目。`,
  dividends_paid: (e, name, co) =>
    `第${e.round}ラウンドの配当：` +
    (e.payments.map((p) => `${name(p.seat)}に${co(p.company)}から${money(p.amount)}`).join('、') || 'なし') +
    '。',
  round_ended: (e, _, co) =>
    `第${e.round}ラウンド終了。次の会社の順番：${e.order.map(co).join('、')}。`,
  boxes_emptied: (e, _, co) =>
    '会社の箱を空にしました' +
    (e.cubes.length ? `（${e.cubes.map((c) => `${co(c.company)} ${c.amount}個`).join('、')}）。` : '。'),
  goods_placed: (e) => `線路のある${e.cities.length}都市に商品キューブを置きました。`,
  delivery_control: (e, name, co) =>
    '出荷の担当：' +
    e.controllers
      .map((s, i) => (s == null ? null : `${co(COMPANIES[i]!)}は${name(s)}`))
      .filter(Boolean)
      .join('、') +
    '。',
  goods_taken: (e, _, co) =>
    `${co(e.company)}が${e.city}の${COLOUR[e.colour].name.ja}の商品を取りました。`,
  delivery_passed: (e, _, co) =>
    `${co(e.company)}はもう商品を取りません${e.automatic ? '（担当者なし）' : ''}。`,
  final_profits: (e, _, co) =>
    '最終利益：' + e.profits.map((p) => `${co(p.company)} ${money(p.profit)}`).join('、') + '。',
  final_dividends_paid: (e, name) => `最終配当（利益×株数）：${perSeat(e.payments, name, '、') || 'なし'}。`,
  game_ended: (e, name) =>
    `ゲーム終了：${e.scores.map((s, i) => `${name(i)} ${money(s)}`).join('、')}。勝者：${e.winners.map(name).join('、')}。`,
};

export function describe(event: Event, lang: Lang, seatName: (seat: number) => string): string {
  // An event of a newer server than this page knows is shown by its type.
  const line = (lang === 'ja' ? JA : EN)[event.type] as ((e: Event, name: Name, co: CompanyName) => string) | undefined;
  if (!line) return event.type;
  return line(event, seatName, (c) => companyLabel(c, lang));
}
