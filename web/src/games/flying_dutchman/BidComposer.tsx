// Composing a sealed bid: pick horseshoes from the hand (at most one gold), give each silver
// a sign, and see the bid's value against the lucky number while choosing. The choice is
// kept in this component's state, so an update of the game at the same step (another
// player's move arriving) does not lose it, and as a draft in the tab, so a reload does not
// either; horseshoes no longer in the hand drop out of it.
import { useState } from 'preact/hooks';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { Horseshoe, bidValue, common, isGold, type BidHorseshoe, type Legal } from './common';

const msgs = defineMessages({
  title: { en: 'Compose a bid', ja: '入札を組み立てる' },
  help: {
    en: 'Choose horseshoes (at most one gold); each silver counts plus or minus. A bid is valid only if its value is at most the lucky number.',
    ja: '蹄鉄を選びます（金は1個まで）。銀はそれぞれプラスかマイナスに数えます。値がラッキーナンバー以下のときだけ有効です。',
  },
  pick: { en: (name: string) => `Use ${name}`, ja: (name: string) => `${name}を使う` },
  sign: {
    en: (name: string, sign: string) => `Sign of ${name}: ${sign}. Press to switch.`,
    ja: (name: string, sign: string) => `${name}の符号：${sign}。押すと切り替わります。`,
  },
  plus: { en: 'plus', ja: 'プラス' },
  minus: { en: 'minus', ja: 'マイナス' },
  oneGold: { en: 'Only one gold horseshoe per bid.', ja: '金の蹄鉄は1回の入札に1個まで。' },
  empty: { en: 'No horseshoe chosen yet.', ja: 'まだ蹄鉄を選んでいません。' },
  value: {
    en: (v: number, ln: number) => `Bid value ${String(v).replace('-', '−')} · lucky number ${ln}`,
    ja: (v: number, ln: number) => `入札の値 ${String(v).replace('-', '−')} ・ ラッキーナンバー ${ln}`,
  },
  valid: { en: 'valid (not over the lucky number)', ja: '有効（ラッキーナンバー以下）' },
  invalid: { en: 'over the lucky number: this bid would be invalid', ja: 'ラッキーナンバー超過：この入札は無効になります' },
  clear: { en: 'Clear', ja: 'クリア' },
  place: {
    en: (n: number, v: number) => `Place the bid (${count(n, 'horseshoe')}, value ${v})`,
    ja: (n: number, v: number) => `入札する（蹄鉄${n}個、値 ${v}）`,
  },
});

/** Where a seat's half-made bid in a game is kept in the tab. */
export function draftKey(game: string, seat: number): string {
  return `kontor.bid-draft:${game}:${seat}`;
}

interface Draft {
  /** The decision it was made for (round, step, decision): at any other it is stale. */
  step: string;
  chosen: BidHorseshoe[];
}

function readDraft(key: string): Draft | null {
  try {
    const draft = JSON.parse(sessionStorage.getItem(key) ?? 'null') as Draft | null;
    return draft && typeof draft.step === 'string' && Array.isArray(draft.chosen) ? draft : null;
  } catch {
    return null;
  }
}

/** Drops the draft unless it was made for `step` (the board calls this as the game moves). */
export function forgetStaleDraft(key: string, step: string) {
  if (sessionStorage.getItem(key) !== null && readDraft(key)?.step !== step) sessionStorage.removeItem(key);
}

/**
 * The half-made bid, kept in sessionStorage under the game and the seat: it lives in this
 * tab only (no other tab, no other seat's page reads it) and holds nothing but horseshoes of
 * the seat's own hand, which its page shows anyway. Sent, or at another step, it goes.
 */
function useDraft(key: string, step: string) {
  const [chosen, setChosenState] = useState<BidHorseshoe[]>(() => {
    forgetStaleDraft(key, step);
    return readDraft(key)?.chosen ?? [];
  });
  const setChosen = (next: BidHorseshoe[]) => {
    setChosenState(next);
    if (next.length) sessionStorage.setItem(key, JSON.stringify({ step, chosen: next } satisfies Draft));
    else sessionStorage.removeItem(key);
  };
  // Called once the bid is taken: by then the next decision's draft may be kept (the stream
  // can bring it before the bid's own answer), and that one stays.
  const forget = () => {
    if (readDraft(key)?.step === step) sessionStorage.removeItem(key);
  };
  return { chosen, setChosen, forget };
}

/** The chosen horseshoes that the hand still holds, at most one gold. */
export function fitToHand(chosen: BidHorseshoe[], hand: number[]): BidHorseshoe[] {
  const left = [...hand];
  let gold = false;
  const out: BidHorseshoe[] = [];
  for (const h of chosen) {
    const at = left.indexOf(h.value);
    if (at < 0 || (isGold(h.value) && gold)) continue;
    left.splice(at, 1);
    gold ||= isGold(h.value);
    out.push(isGold(h.value) ? { value: h.value, sign: 'plus' } : h);
  }
  return out;
}

export function BidComposer({
  seat,
  legal,
  busy,
  onBid,
  submitLabel,
  draft,
}: {
  /** The caller's seat: the horseshoes shown are that seat's hand. */
  seat: number;
  legal: Legal;
  busy: boolean;
  /** Sends the bid; rejects when it is refused (the draft then stays). */
  onBid: (horseshoes: BidHorseshoe[]) => Promise<void>;
  submitLabel?: (n: number, v: number) => string;
  /** Where the draft is kept (`draftKey`) and the decision it is for. */
  draft: { key: string; step: string };
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { chosen: chosenRaw, setChosen, forget } = useDraft(draft.key, draft.step);
  const hand = legal.horseshoes.map((h) => h.value).sort((a, b) => a - b);
  const chosen = fitToHand(chosenRaw, hand);
  const lucky = legal.lucky_number ?? 0;
  const value = bidValue(chosen);
  const goldChosen = chosen.some((h) => isGold(h.value));

  // The k-th horseshoe of a face is chosen when at least k+1 of that face are chosen.
  const seen = new Map<number, number>();
  const items = hand.map((face) => {
    const k = seen.get(face) ?? 0;
    seen.set(face, k + 1);
    const ofFace = chosen.filter((h) => h.value === face);
    return { face, k, entry: ofFace[k] };
  });

  const toggle = (face: number, isChosen: boolean) => {
    if (isChosen) {
      // Take out the last chosen one of this face (they are interchangeable).
      const idx = chosen.map((h) => h.value).lastIndexOf(face);
      setChosen(chosen.filter((_, i) => i !== idx));
    } else if (!(isGold(face) && goldChosen)) {
      setChosen([...chosen, { value: face, sign: 'plus' }]);
    }
  };
  const flip = (face: number, k: number) => {
    let n = -1;
    setChosen(
      chosen.map((h) => {
        if (h.value !== face) return h;
        n += 1;
        return n === k ? { ...h, sign: h.sign === 'minus' ? 'plus' : 'minus' } : h;
      }),
    );
  };

  return (
    <fieldset class="fd-composer" data-testid="fd-composer" data-hand-of={seat}>
      <legend>{m.title}</legend>
      <p class="fd-note">{m.help}</p>
      <ul class="fd-shoes">
        {items.map(({ face, k, entry }) => {
          const gold = isGold(face);
          const name = common.horseshoe[lang](gold ? common.gold[lang] : common.silver[lang], String(face));
          const blocked = !entry && gold && goldChosen;
          return (
            <li key={`${face}-${k}`} class={entry ? 'fd-chosen' : ''} data-face={face}>
              <button
                type="button"
                class="fd-shoe-toggle"
                aria-pressed={entry ? 'true' : 'false'}
                data-face={face}
                disabled={busy || blocked}
                title={blocked ? m.oneGold : undefined}
                onClick={() => toggle(face, Boolean(entry))}
              >
                {/* Named by its content, not a label the visible face ("10 S") is not in:
                    what a screen reader says, the face drawn for the eye. */}
                <span class="visually-hidden">{m.pick(name)}</span>
                <span aria-hidden="true">
                  <Horseshoe face={face} lang={lang} />
                </span>
              </button>
              {entry && !gold && (
                <button
                  type="button"
                  class="fd-sign secondary"
                  data-sign-of={face}
                  aria-label={m.sign(name, entry.sign === 'minus' ? m.minus : m.plus)}
                  onClick={() => flip(face, k)}
                  disabled={busy}
                >
                  {entry.sign === 'minus' ? '−' : '+'}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {goldChosen && <p class="fd-note">{m.oneGold}</p>}
      <p class="fd-bid-value" aria-live="polite" data-testid="fd-bid-value" data-value={chosen.length ? value : undefined}>
        {chosen.length === 0 ? (
          m.empty
        ) : (
          <>
            {chosen.map((h, i) => (
              <Horseshoe key={i} face={h.value} sign={h.sign ?? 'plus'} lang={lang} />
            ))}{' '}
            <strong>
              {m.value(value, lucky)} — {value <= lucky ? `✓ ${m.valid}` : `✗ ${m.invalid}`}
            </strong>
          </>
        )}
      </p>
      <div class="fd-buttons">
        <button type="button" disabled={busy || chosen.length === 0} onClick={() => void onBid(chosen).then(forget, () => {})} data-testid="fd-place-bid">
          {(submitLabel ?? m.place)(chosen.length, value)}
        </button>
        <button type="button" class="secondary" disabled={busy || chosen.length === 0} onClick={() => setChosen([])}>
          {m.clear}
        </button>
      </div>
    </fieldset>
  );
}
