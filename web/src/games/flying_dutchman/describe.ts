// One readable line per event, in the viewer's redaction: the hidden parts (cards drawn,
// horseshoes received, a sealed bid) are absent from other seats' copies, and the line then
// says only what happened, not what it was.
import { count, type Lang } from '../../i18n';
import { COLOURS, bidValue, capitalise, spaceName, type BidHorseshoe, type BoardData, type Colour, type FdEvent, type MoveReason } from './common';

type Names = (seat: number) => string;

const BOARD_FALLBACK: BoardData = { start: 'HOLLAND', spaces: [], lines: [] };

function colours(list: Colour[], lang: Lang): string {
  return list.map((c) => COLOURS[c].name[lang]).join(lang === 'ja' ? '・' : ', ');
}

function shoes(list: BidHorseshoe[]): string {
  return list.map((h, i) => `${h.sign === 'minus' ? '−' : i === 0 ? '' : '+'}${h.value}`).join(' ');
}

function seats(list: number[], name: Names, lang: Lang): string {
  return list.map(name).join(lang === 'ja' ? '、' : ', ');
}

const REASONS: Record<MoveReason, Record<Lang, string>> = {
  sole_bid: { en: 'with the best bid', ja: '最高の入札で' },
  dice_off: { en: 'after the dice-off', ja: 'サイコロ勝負の結果' },
  declaration: { en: 'as all tied players declared', ja: '同点者全員の宣言どおり' },
  agreement: { en: 'as agreed', ja: '合意により' },
};

/**
 * The line for one event. `board` names the spaces (the page passes the board of the view;
 * without one, space ids are shown).
 */
export function describeEvent(event: FdEvent, lang: Lang, name: Names, board: BoardData = BOARD_FALLBACK): string {
  const ja = lang === 'ja';
  const space = (id: string) => (board.spaces.length ? spaceName(board, id, lang) : id);
  switch (event.type) {
    case 'game_started':
      return ja
        ? `ゲーム開始：各自${event.ducats}ドゥカート、鍛冶屋カード3枚と商館カード3枚。スタートプレイヤーは${name(event.start_player)}。`
        : `The game begins: ${count(event.ducats, 'ducat')}, 3 smith and 3 Kontor cards each; ${name(event.start_player)} starts.`;
    case 'dealt':
      if (event.shares && event.horseshoes)
        return ja
          ? `${name(event.seat)}に配られた手札：株 ${colours(event.shares, lang)}、蹄鉄 ${event.horseshoes.join(' ')}。`
          : `${name(event.seat)} is dealt shares ${colours(event.shares, lang)} and horseshoes ${event.horseshoes.join(' ')}.`;
      return ja
        ? `${name(event.seat)}に株${event.share_count}枚と蹄鉄${event.horseshoe_count}個が伏せて配られた。`
        : `${name(event.seat)} is dealt ${event.share_count} share cards and ${event.horseshoe_count} horseshoes, face down.`;
    case 'hidden_piles_formed':
      return ja
        ? `株の山札${event.share_stack_size}枚、蹄鉄の置き場${event.pool_size}個、使わない蹄鉄${event.unused_size}個。`
        : `Share stack of ${event.share_stack_size}, horseshoe pool of ${event.pool_size}, ${event.unused_size} horseshoes out of the game.`;
    case 'round_started':
      return ja
        ? `第${event.round}ラウンド：${name(event.start_player)}のサイコロ ${event.die_a} + ${event.die_b}、ラッキーナンバー ${event.lucky_number}。`
        : `Round ${event.round}: ${name(event.start_player)} rolls ${event.die_a} + ${event.die_b}; the lucky number is ${event.lucky_number}.`;
    case 'kontor_used':
      if (event.drawn)
        return ja
          ? `${name(event.seat)}は商館で交換し、${colours(event.drawn, lang)}を引いた。`
          : `${name(event.seat)} uses a Kontor card and draws ${colours(event.drawn, lang)}.`;
      return ja ? `${name(event.seat)}は商館で交換し、株を2枚引いた。` : `${name(event.seat)} uses a Kontor card and draws two share cards.`;
    case 'shares_returned':
      if (event.cards)
        return ja
          ? `${name(event.seat)}は${colours(event.cards, lang)}を山札の下に戻した。`
          : `${name(event.seat)} puts ${colours(event.cards, lang)} back under the stack.`;
      return ja ? `${name(event.seat)}は株を2枚山札の下に戻した。` : `${name(event.seat)} puts two share cards back under the stack.`;
    case 'smith_used':
      return ja ? `${name(event.seat)}は鍛冶屋に行った。` : `${name(event.seat)} goes to the smith.`;
    case 'bid_placed':
      if (event.horseshoes)
        return ja
          ? `${name(event.seat)}は伏せて入札：${shoes(event.horseshoes)}（値 ${bidValue(event.horseshoes)}）。`
          : `${name(event.seat)} places a sealed bid: ${shoes(event.horseshoes)} (value ${bidValue(event.horseshoes)}).`;
      return ja
        ? `${name(event.seat)}は蹄鉄${event.size}個で伏せて入札した。`
        : `${name(event.seat)} places a sealed bid of ${count(event.size, 'horseshoe')}.`;
    case 'passed':
      return ja ? `${name(event.seat)}はパスした。` : `${name(event.seat)} passes.`;
    case 'smith_split':
      return ja
        ? `鍛冶屋：${seats(event.seats, name, lang)}が置き場から${event.each}個ずつ受け取り、${event.left_in_pool}個残った。`
        : `The smith: ${seats(event.seats, name, lang)} ${event.seats.length === 1 ? 'takes' : 'take'} ${count(event.each, 'horseshoe')}${event.seats.length === 1 ? '' : ' each'} from the pool; ${event.left_in_pool} stay${event.left_in_pool === 1 ? 's' : ''}.`;
    case 'horseshoes_drawn':
      if (event.horseshoes)
        return ja
          ? `${name(event.seat)}は蹄鉄 ${event.horseshoes.join(' ')} を受け取った。`
          : `${name(event.seat)} receives horseshoes ${event.horseshoes.join(' ')}.`;
      return ja ? `${name(event.seat)}は蹄鉄を${event.count}個受け取った。` : `${name(event.seat)} receives ${count(event.count, 'horseshoe')}.`;
    case 'bids_revealed': {
      const bids = event.bids
        .map((b) =>
          ja
            ? `${name(b.seat)} ${shoes(b.horseshoes)} = ${b.value}${b.valid ? '' : '（無効）'}`
            : `${name(b.seat)} ${shoes(b.horseshoes)} = ${b.value}${b.valid ? '' : ' (invalid)'}`,
        )
        .join(ja ? '、' : '; ');
      const dropped = event.dropped_out.length
        ? ja
          ? `降りた：${seats(event.dropped_out, name, lang)}。`
          : ` Dropped out: ${seats(event.dropped_out, name, lang)}.`
        : '';
      const head = event.extra_round ? (ja ? '追加ラウンドの入札公開' : 'Extra-round bids revealed') : ja ? '入札公開' : 'Bids revealed';
      const result =
        event.result.kind === 'sole_mover'
          ? ja
            ? `${name(event.result.seat)}が幽霊船を動かす。`
            : `${name(event.result.seat)} moves the ghost ship.`
          : event.result.kind === 'tie'
            ? ja
              ? `同点：${seats(event.result.seats, name, lang)}。`
              : `A tie between ${seats(event.result.seats, name, lang)}.`
            : ja
              ? '有効な入札なし：サイコロ勝負。'
              : 'No valid bid: a dice-off decides.';
      return ja ? `${head}：${bids || 'なし'}。${dropped}${result}` : `${head}: ${bids || 'none'}.${dropped} ${result}`;
    }
    case 'dice_off': {
      const rolls = event.rolls
        .map((round) => round.map((r) => `${name(r.seat)} ${r.die_a}+${r.die_b}=${r.total}`).join(ja ? '、' : ', '))
        .join(ja ? ' / 振り直し ' : ' / re-roll ');
      return ja
        ? `サイコロ勝負：${rolls}。${name(event.winner)}が幽霊船を動かす。`
        : `Dice-off: ${rolls}. ${name(event.winner)} moves the ghost ship.`;
    }
    case 'declared':
      return ja ? `${name(event.seat)}は${space(event.to)}を宣言した。` : `${name(event.seat)} declares ${space(event.to)}.`;
    case 'negotiation_started':
      return ja
        ? `宣言が分かれたので、${seats(event.seats, name, lang)}が交渉する。`
        : `The declarations differ: ${seats(event.seats, name, lang)} negotiate.`;
    case 'offer_made': {
      const o = event.offer;
      const pays = o.payments.length
        ? o.payments.map((p) => (ja ? `${name(p.seat)}に${p.amount}` : `${p.amount} to ${name(p.seat)}`)).join(ja ? '、' : ', ')
        : ja
          ? '支払いなし'
          : 'no payments';
      return ja
        ? `${name(o.by)}の提案${o.id}：${space(o.to)}へ（${pays}）。`
        : `${name(o.by)} makes offer ${o.id}: go to ${space(o.to)} (${pays}).`;
    }
    case 'offer_accepted':
      return ja ? `${name(event.seat)}は提案${event.offer}を受け入れた。` : `${name(event.seat)} accepts offer ${event.offer}.`;
    case 'offer_rejected':
      return ja ? `${name(event.seat)}は提案${event.offer}を拒否した。` : `${name(event.seat)} rejects offer ${event.offer}.`;
    case 'offer_withdrawn':
      return ja ? `${name(event.seat)}は提案${event.offer}を取り下げた。` : `${name(event.seat)} withdraws offer ${event.offer}.`;
    case 'agreement_reached': {
      const paid = event.transfers.length
        ? event.transfers
            .map((t) => (ja ? `${name(t.from)}→${name(t.to)} ${t.amount}` : `${name(t.from)} pays ${name(t.to)} ${t.amount}`))
            .join(ja ? '、' : ', ')
        : ja
          ? '支払いなし'
          : 'no payments';
      return ja ? `合意：${space(event.to)}へ（${paid}）。` : `Agreed: to ${space(event.to)} (${paid}).`;
    }
    case 'no_agreement':
      if (event.seat === undefined || event.seat === null)
        return ja ? '交渉の期限切れ：合意なし。' : 'The negotiation ran out of time: no agreement.';
      return ja ? `${name(event.seat)}が「合意なし」を宣言した。` : `${name(event.seat)} declares no agreement.`;
    case 'extra_round_started':
      return ja
        ? `追加ラウンド：${seats(event.seats, name, lang)}は秘密に再入札するか降りる。`
        : `Extra round: ${seats(event.seats, name, lang)} each secretly bid again or drop out.`;
    case 'extra_choice_made':
      if (event.choice)
        return event.choice.kind === 'drop_out'
          ? ja
            ? `${name(event.seat)}は降りることにした（秘密）。`
            : `${name(event.seat)} chooses to drop out (secret).`
          : ja
            ? `${name(event.seat)}は秘密に再入札した：${shoes(event.choice.horseshoes)}（値 ${bidValue(event.choice.horseshoes)}）。`
            : `${name(event.seat)} secretly bids again: ${shoes(event.choice.horseshoes)} (value ${bidValue(event.choice.horseshoes)}).`;
      return ja ? `${name(event.seat)}は秘密の選択をした。` : `${name(event.seat)} has made a secret choice.`;
    case 'ghost_ship_moved':
      return ja
        ? `${seats(event.movers, name, lang)}が${REASONS[event.reason].ja}幽霊船を${space(event.from)}から${space(event.to)}へ動かした。`
        : `${seats(event.movers, name, lang)} move${event.movers.length === 1 ? 's' : ''} the ghost ship ${REASONS[event.reason].en} from ${space(event.from)} to ${space(event.to)}.`;
    case 'ship_hit': {
      const c = COLOURS[event.colour].name[lang];
      const pays = event.payments.length
        ? event.payments
            .map((p) =>
              ja
                ? `${name(p.seat)}は${p.cards}枚で${p.due}${p.bankrupt ? '（払えず）' : ''}`
                : `${name(p.seat)} ${count(p.cards, 'card')}, ${p.due}${p.bankrupt ? ' (cannot pay)' : ''}`,
            )
            .join(ja ? '、' : '; ')
        : ja
          ? '誰も持っていない'
          : 'nobody holds it';
      return ja
        ? `幽霊船が${c}の船を襲った（価値${event.value}）：${pays}。${c}は0に落ち、全マーカーが1つ進む。`
        : `The ghost ship hits ${/^[aeiou]/.test(c) ? 'an' : 'a'} ${c} ship (worth ${event.value}): ${pays}. ${capitalise(c)} drops to 0, every marker moves on.`;
    }
    case 'bankrupt':
      return ja
        ? `${name(event.seat)}は破産した（${event.coins_lost}ドゥカートを失う）。手札：${colours(event.shares, lang)}、蹄鉄 ${event.horseshoes.join(' ') || 'なし'}。`
        : `${name(event.seat)} is bankrupt and loses ${count(event.coins_lost, 'ducat')}; their cards: ${colours(event.shares, lang)}, horseshoes ${event.horseshoes.join(' ') || 'none'}.`;
    case 'income_taken':
      return ja
        ? `${name(event.seat)}は${COLOURS[event.colour].name[lang]}の株を見せて${event.amount}ドゥカート受け取った。`
        : `${name(event.seat)} shows a ${COLOURS[event.colour].name[lang]} share and takes ${count(event.amount, 'ducat')}.`;
    case 'income_declined':
      return ja ? `${name(event.seat)}は収入を受け取らなかった。` : `${name(event.seat)} takes no income.`;
    case 'pool_refilled':
      return ja
        ? `片付け：入札された蹄鉄${event.added}個が置き場に戻り、置き場は${event.size}個。`
        : `Clean-up: ${event.added} bid horseshoe${event.added === 1 ? ' goes' : 's go'} to the pool, now ${event.size}.`;
    case 'game_ended': {
      const scores = event.scores
        .map((s, seat) => (s === null || s === undefined ? null : `${name(seat)} ${s}`))
        .filter(Boolean)
        .join(ja ? '、' : ', ');
      return ja
        ? `ゲーム終了：${scores}。勝者：${seats(event.winners, name, lang)}。`
        : `The game ends: ${scores}. Winner${event.winners.length === 1 ? '' : 's'}: ${seats(event.winners, name, lang)}.`;
    }
    default:
      return (event as { type: string }).type;
  }
}

/**
 * The negotiation's formal steps as lines of the table's chat ("Anna offers Bob 3 ducats to
 * go to the island"), so the talk and the deal read as one conversation; null for every
 * other event.
 */
export function negotiationLine(event: FdEvent, lang: Lang, name: Names, board: BoardData = BOARD_FALLBACK): string | null {
  const ja = lang === 'ja';
  const space = (id: string) => (board.spaces.length ? spaceName(board, id, lang) : id);
  switch (event.type) {
    case 'negotiation_started':
    case 'offer_accepted':
    case 'offer_rejected':
    case 'offer_withdrawn':
    case 'agreement_reached':
    case 'no_agreement':
      return describeEvent(event, lang, name, board);
    case 'offer_made': {
      const o = event.offer;
      if (o.payments.length === 0)
        return ja
          ? `${name(o.by)}は支払いなしで${space(o.to)}へ行くことを提案した（提案${o.id}）。`
          : `${name(o.by)} offers to go to ${space(o.to)} with no payments (offer ${o.id}).`;
      const pays = o.payments
        .map((p) => (ja ? `${name(p.seat)}に${p.amount}ドゥカート` : `${name(p.seat)} ${count(p.amount, 'ducat')}`))
        .join(ja ? '、' : ' and ');
      return ja
        ? `${name(o.by)}は${space(o.to)}へ行くなら${pays}を払うと提案した（提案${o.id}）。`
        : `${name(o.by)} offers ${pays} to go to ${space(o.to)} (offer ${o.id}).`;
    }
    default:
      return null;
  }
}
