// The Flying Dutchman's standing orders on the page (RULES.md, "Standing orders and forced
// moves"): this round's action (a pass, the Kontor, the smith, or a sealed bid of one's own
// horseshoes, as secret as the bid), what to do in an extra round, and the income rule for
// the whole game. The other kinds (a move, a declaration, offers, a Kontor ranking) are in
// the API and listed here in words like any.
import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { defineMessages, useLang, useMessages, type Lang } from '../../i18n';
import type { OrderComposerProps } from '../types';
import { COLOURS, isGold, type View } from './common';

export type Order = Schemas['FlyingDutchman.Order'];
type Horseshoe = Schemas['FlyingDutchman.BidHorseshoe'];

const msgs = defineMessages({
  title: { en: 'Set an order', ja: '指示を出す' },
  action: { en: (r: number) => `My action in round ${r}`, ja: (r: number) => `第${r}ラウンドの行動` },
  pass: { en: 'Pass', ja: 'パス' },
  kontor: { en: 'Use the Kontor', ja: 'コントールを使う' },
  smith: { en: 'Use the smith', ja: '鍛冶屋を使う' },
  bid: { en: 'Bid the horseshoes chosen (sealed)', ja: '選んだ蹄鉄で入札（封印）' },
  use: { en: (v: number) => `Use ${v}`, ja: (v: number) => `${v}を使う` },
  minus: { en: (v: number) => `${v} counts minus`, ja: (v: number) => `${v}をマイナスに数える` },
  extra: { en: 'If an extra round comes: drop out', ja: '延長戦になったら降りる' },
  income: { en: 'Island income for the rest of the game', ja: 'この先の島での収入' },
  best: { en: 'Show my most valuable card', ja: '最も価値の高いカードを見せる' },
  decline: { en: 'Take no income', ja: '収入を得ない' },
});

/** A Flying Dutchman order in words (its own horseshoes and cards: seen by its seat only). */
export function describeOrder(order: Order, lang: Lang): string {
  const ja = lang === 'ja';
  const shoes = (h: Horseshoe[]) => h.map((x) => `${x.sign === 'minus' ? '−' : '+'}${x.value}`).join(' ');
  const colour = (c: keyof typeof COLOURS) => COLOURS[c].name[lang];
  switch (order.type) {
    case 'action': {
      const a = order.action as { type: string; horseshoes?: Horseshoe[] };
      const what =
        a.type === 'bid'
          ? ja
            ? `入札 ${shoes(a.horseshoes ?? [])}`
            : `bid ${shoes(a.horseshoes ?? [])}`
          : a.type === 'use_kontor'
            ? ja
              ? 'コントール'
              : 'use the Kontor'
            : a.type === 'use_smith'
              ? ja
                ? '鍛冶屋'
                : 'use the smith'
              : ja
                ? 'パス'
                : 'pass';
      const limit = order.max_bids_before === undefined || order.max_bids_before === null ? '' : ja ? `（前の入札が${order.max_bids_before}人までなら）` : ` (unless more than ${order.max_bids_before} bid before me)`;
      return ja ? `第${order.round}ラウンドの行動：${what}${limit}` : `Round ${order.round} action: ${what}${limit}`;
    }
    case 'kontor_return':
      return ja ? `第${order.round}ラウンドのコントール：残す順 ${order.keep.map(colour).join('、')}` : `Round ${order.round} Kontor: keep in order ${order.keep.map(colour).join(', ')}`;
    case 'move':
      return ja ? `第${order.round}ラウンド、幽霊船を動かすなら${order.to}へ` : `Round ${order.round}: if I move the ghost ship, to ${order.to}`;
    case 'declare':
      return ja ? `第${order.round}ラウンド、同点なら${order.to}を宣言` : `Round ${order.round}: in a tie, declare ${order.to}`;
    case 'offer':
      return ja ? `第${order.round}ラウンド、交渉で${order.to}を提案（各${order.each}ダカット）` : `Round ${order.round}: in a negotiation, offer ${order.to} paying ${order.each} each`;
    case 'accept':
      return ja ? `第${order.round}ラウンド、${order.to}の提案を${order.min_payment}ダカット以上なら受ける` : `Round ${order.round}: accept offers for ${order.to} paying me at least ${order.min_payment}`;
    case 'extra_round': {
      const c = order.choice as { kind: string; horseshoes?: Horseshoe[] };
      const what = c.kind === 'drop_out' ? (ja ? '降りる' : 'drop out') : ja ? `入札 ${shoes(c.horseshoes ?? [])}` : `bid ${shoes(c.horseshoes ?? [])}`;
      return ja ? `第${order.round}ラウンドの延長戦：${what}` : `Round ${order.round} extra round: ${what}`;
    }
    case 'income': {
      const r = order.rule as { kind: string; colours?: (keyof typeof COLOURS)[] };
      const what =
        r.kind === 'best' ? (ja ? '最も価値の高いカード' : 'the most valuable card') : r.kind === 'decline' ? (ja ? '収入なし' : 'no income') : ja ? `優先：${(r.colours ?? []).map(colour).join('、')}` : `prefer ${(r.colours ?? []).map(colour).join(', ')}`;
      return ja ? `島での収入：${what}` : `Island income: ${what}`;
    }
  }
}

export function OrderComposer({ view, mySeat, set, busy }: OrderComposerProps<View, Order>) {
  const m = useMessages(msgs);
  useLang();
  const me = view.players.find((p) => p.seat === mySeat);
  const hand = me?.horseshoes ?? [];
  // The horseshoes chosen for a bid order, by their place in the hand.
  const [chosen, setChosen] = useState<Record<number, 'plus' | 'minus'>>({});
  const send = (order: Order) => void set(order).catch(() => {});
  const round = view.round;
  const acted = me?.action !== null && me?.action !== undefined;
  const bid: Horseshoe[] = Object.entries(chosen)
    .filter(([i]) => Number(i) < hand.length)
    .map(([i, sign]) => ({ value: hand[Number(i)]!, sign }));
  const action = (a: Order & { type: 'action' }) => send(a);
  return (
    <div class="order-composer" data-testid="fd-order-composer">
      <h3>{m.title}</h3>
      {!acted && round > 0 && (
        <fieldset>
          <legend>{m.action(round)}</legend>
          <button type="button" disabled={busy} onClick={() => action({ type: 'action', round, action: { type: 'pass' } })}>
            {m.pass}
          </button>{' '}
          {(me?.kontor_cards ?? 0) > 0 && (
            <button type="button" class="secondary" disabled={busy} onClick={() => action({ type: 'action', round, action: { type: 'use_kontor' } })}>
              {m.kontor}
            </button>
          )}{' '}
          {(me?.smith_cards ?? 0) > 0 && (
            <button type="button" class="secondary" disabled={busy} onClick={() => action({ type: 'action', round, action: { type: 'use_smith' } })}>
              {m.smith}
            </button>
          )}
          {hand.length > 0 && (
            <div class="order-bid" data-testid="fd-order-bid">
              {hand.map((value, i) => (
                <span key={i} class="order-shoe">
                  <label>
                    <input
                      type="checkbox"
                      checked={chosen[i] !== undefined}
                      onChange={(e) => {
                        const next = { ...chosen };
                        if ((e.target as HTMLInputElement).checked) next[i] = 'plus';
                        else delete next[i];
                        setChosen(next);
                      }}
                    />{' '}
                    {m.use(value)}
                  </label>
                  {chosen[i] !== undefined && !isGold(value) && (
                    <label>
                      {' '}
                      <input
                        type="checkbox"
                        checked={chosen[i] === 'minus'}
                        onChange={(e) => setChosen({ ...chosen, [i]: (e.target as HTMLInputElement).checked ? 'minus' : 'plus' })}
                      />{' '}
                      {m.minus(value)}
                    </label>
                  )}
                </span>
              ))}
              <button type="button" disabled={busy || bid.length === 0} onClick={() => action({ type: 'action', round, action: { type: 'bid', horseshoes: bid } })}>
                {m.bid}
              </button>
            </div>
          )}
        </fieldset>
      )}
      {round > 0 && (
        <p>
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'extra_round', round, choice: { kind: 'drop_out' } })}>
            {m.extra}
          </button>
        </p>
      )}
      <fieldset>
        <legend>{m.income}</legend>
        <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'income', rule: { kind: 'best' } })}>
          {m.best}
        </button>{' '}
        <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'income', rule: { kind: 'decline' } })}>
          {m.decline}
        </button>
      </fieldset>
    </div>
  );
}
