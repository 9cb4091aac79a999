// The caller's choices, one panel per kind of decision, each offering only what `legal`
// allows. Half-made choices (a bid, two cards to put back, an offer) live in the panel's
// state; the board keys the panel by the step, so an update at the same step keeps them.
import { useState } from 'preact/hooks';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { BidComposer } from './BidComposer';
import { COLOURS, ShareCard, spaceName, type BidHorseshoe, type Command, type Legal, type Offer, type View } from './common';

const msgs = defineMessages({
  yourMove: { en: 'Your move', ja: 'あなたの番' },
  chooseAction: { en: 'Choose your action for this round', ja: 'このラウンドの行動を選んでください' },
  kontor: { en: 'Kontor exchange', ja: '商館で交換' },
  kontorHelp: {
    en: 'Spend a Kontor card, draw the top two share cards, then put back any two of your five.',
    ja: '商館カードを1枚使い、株の山札から2枚引いて、5枚のうち2枚を山札の下に戻します。',
  },
  smith: { en: 'Smith', ja: '鍛冶屋' },
  smithHelp: {
    en: 'Spend a smith card; once everyone has acted you share out the horseshoe pool.',
    ja: '鍛冶屋カードを1枚使います。全員の行動後、蹄鉄の置き場を分け合います。',
  },
  pass: { en: 'Pass', ja: 'パス' },
  passHelp: { en: 'Do nothing this round (only with 4 or fewer horseshoes).', ja: 'このラウンドは何もしません（蹄鉄4個以下のときのみ）。' },
  noPass: { en: 'With more than 4 horseshoes you may not pass.', ja: '蹄鉄が5個以上あるのでパスできません。' },
  returnTitle: { en: 'Put two share cards back', ja: '株券を2枚戻す' },
  returnHelp: {
    en: 'Choose two of your five cards in the order they go under the stack: the second one chosen becomes the very bottom card.',
    ja: '5枚から2枚を、山札の下に入れる順に選びます。2枚目に選んだカードが一番下になります。',
  },
  pickCard: { en: (c: string, n: number) => `${c} share (card ${n})`, ja: (c: string, n: number) => `${c}の株（${n}枚目）` },
  order: { en: (n: number) => `#${n}`, ja: (n: number) => `${n}番目` },
  putBack: { en: 'Put these two back', ja: 'この2枚を戻す' },
  moveTitle: { en: 'Move the ghost ship', ja: '幽霊船を動かす' },
  moveHelp: { en: 'Choose a space next to it (on the map or here).', ja: '隣の場所を選んでください（海図でもここでも）。' },
  moveTo: { en: (to: string) => `Move to ${to}`, ja: (to: string) => `${to}へ動かす` },
  landShip: {
    en: (c: string, v: number) => `holders of ${c} shares pay ${v} per card`,
    ja: (c: string, v: number) => `${c}の株を持つ人は1枚につき${v}払う`,
  },
  landIsland: { en: 'island: the movers may take income', ja: '島：動かした人は収入を得られる' },
  declareTitle: { en: 'Tie: declare where you want the ghost ship to go', ja: '同点：幽霊船の行き先を宣言してください' },
  declareHelp: {
    en: 'If all tied players name the same space, you move it there together; otherwise you negotiate.',
    ja: '同点の全員が同じ場所を宣言すればそこへ一緒に動かします。違えば交渉になります。',
  },
  declare: { en: (to: string) => `Declare ${to}`, ja: (to: string) => `${to}を宣言` },
  declared: { en: 'Declared so far', ja: 'これまでの宣言' },
  negotiateTitle: { en: 'Tie: negotiate', ja: '同点：交渉' },
  negotiateHelp: {
    en: 'Offer a destination with coin payments to other tied players; when every tied player accepts the same destination, the accepted payments are made and you move there together.',
    ja: '行き先と、同点の他のプレイヤーへの支払いを提案します。全員が同じ行き先を受け入れると、受け入れた支払いが行われ、一緒にそこへ動かします。',
  },
  deadline: {
    en: (h: string) => `Without agreement within ${h} of the start of the negotiation, it counts as "no agreement".`,
    ja: (h: string) => `交渉開始から${h}以内に合意しなければ「合意なし」になります。`,
  },
  offers: { en: 'Standing offers', ja: '出ている提案' },
  noOffers: { en: 'No offers yet.', ja: 'まだ提案はありません。' },
  offerLine: {
    en: (id: number, by: string, to: string) => `Offer ${id} by ${by}: go to ${to}`,
    ja: (id: number, by: string, to: string) => `提案${id}（${by}）：${to}へ`,
  },
  pays: { en: (who: string, n: number) => `pays ${who} ${n}`, ja: (who: string, n: number) => `${who}に${n}支払う` },
  noPayments: { en: 'no payments', ja: '支払いなし' },
  acceptedBy: { en: (names: string) => `accepted by ${names}`, ja: (names: string) => `受け入れ：${names}` },
  rejectedBy: { en: (names: string) => `rejected by ${names}`, ja: (names: string) => `拒否：${names}` },
  accept: { en: (id: number) => `Accept offer ${id}`, ja: (id: number) => `提案${id}を受け入れる` },
  reject: { en: (id: number) => `Reject offer ${id}`, ja: (id: number) => `提案${id}を拒否する` },
  withdraw: { en: (id: number) => `Withdraw offer ${id}`, ja: (id: number) => `提案${id}を取り下げる` },
  youAccept: { en: 'you accept it', ja: 'あなたは受け入れています' },
  youReject: { en: 'you rejected it', ja: 'あなたは拒否しました' },
  makeOffer: { en: 'Make an offer', ja: '提案する' },
  destination: { en: 'Destination', ja: '行き先' },
  payTo: { en: (who: string) => `Pay ${who} (ducats)`, ja: (who: string) => `${who}への支払い（ドゥカート）` },
  available: {
    en: (n: number) => `You may still promise ${count(n, 'ducat')} for this destination.`,
    ja: (n: number) => `この行き先にはあと${n}ドゥカートまで約束できます。`,
  },
  tooMuch: { en: 'That is more than you may promise.', ja: '約束できる額を超えています。' },
  sendOffer: { en: 'Make this offer', ja: 'この提案を出す' },
  noAgreement: { en: 'No agreement', ja: '合意なし' },
  noAgreementHelp: { en: 'Ends the negotiation: an extra round of bids follows.', ja: '交渉を終えます。追加の入札ラウンドになります。' },
  extraTitle: { en: 'Extra round: bid again or drop out', ja: '追加ラウンド：もう一度入札するか降りる' },
  extraHelp: {
    en: 'In secret: bid again from the horseshoes you still hold (same lucky number), or give up the contest.',
    ja: '秘密に選びます：残りの蹄鉄でもう一度入札する（同じラッキーナンバー）か、争いから降ります。',
  },
  extraBid: {
    en: (n: number, v: number) => `Bid again (${count(n, 'horseshoe')}, value ${v})`,
    ja: (n: number, v: number) => `再入札する（蹄鉄${n}個、値 ${v}）`,
  },
  dropOut: { en: 'Drop out', ja: '降りる' },
  incomeTitle: { en: 'Island: take income', ja: '島：収入を得る' },
  incomeHelp: {
    en: 'Show one of your share cards and take its colour’s current value from the bank, or take nothing.',
    ja: '株券を1枚見せて、その色の現在の価値を銀行から受け取ります。受け取らなくてもかまいません。',
  },
  takeIncome: { en: (c: string, n: number) => `Show ${c}: take ${count(n, 'ducat')}`, ja: (c: string, n: number) => `${c}を見せて${n}ドゥカート受け取る` },
  decline: { en: 'Take nothing', ja: '受け取らない' },
  hours: { en: (h: number) => `${h} h`, ja: (h: number) => `${h}時間` },
  minutes: { en: (n: number) => `${n} min`, ja: (n: number) => `${n}分` },
});

type M = ReturnType<typeof useMessages<typeof msgs>>;

export interface ControlsProps {
  view: View;
  legal: Legal;
  mySeat: number;
  busy: boolean;
  act: (command: Command) => Promise<void>;
  seatName: (seat: number) => string;
  /** Where a half-made bid is kept, and the decision it is for (see BidComposer). */
  draft: { key: string; step: string };
}

/**
 * Sends a command. A refusal is shown by the game page (in the viewer's language, from the
 * module's `errorMessages`); the panel keeps its half-made choice for another try.
 */
function sender(act: (c: Command) => Promise<void>) {
  return (command: Command) => void act(command).catch(() => {});
}

export function Controls(props: ControlsProps) {
  const m = useMessages(msgs);
  const send = sender(props.act);
  const { legal } = props;
  const panel = (() => {
    switch (legal.decision) {
      case 'action':
        return <ActionPanel {...props} send={send} m={m} />;
      case 'return_shares':
        return <ReturnPanel {...props} send={send} m={m} />;
      case 'move':
      case 'declare':
        return <DestinationPanel {...props} send={send} m={m} />;
      case 'negotiate':
        return <NegotiationPanel {...props} send={send} m={m} />;
      case 'extra_round':
        return <ExtraRoundPanel {...props} send={send} m={m} />;
      case 'island_income':
        return <IncomePanel {...props} send={send} m={m} />;
      default:
        return null;
    }
  })();
  if (!panel) return null;
  return (
    <section class="fd-controls" aria-label={m.yourMove} data-testid="fd-controls" data-decision={legal.decision} data-controls tabIndex={-1}>
      <h3>{m.yourMove}</h3>
      {panel}
    </section>
  );
}

type PanelProps = ControlsProps & { send: (c: Command) => void; m: M };

function has(legal: Legal, kind: Legal['commands'][number]) {
  return legal.commands.includes(kind);
}

function ActionPanel({ legal, busy, send, m, mySeat, act, draft }: PanelProps) {
  return (
    <div>
      <h4>{m.chooseAction}</h4>
      <div class="fd-choices">
        {has(legal, 'use_kontor') && (
          <div class="fd-choice">
            <button type="button" disabled={busy} onClick={() => send({ type: 'use_kontor' })}>
              {m.kontor}
            </button>
            <p class="fd-note">{m.kontorHelp}</p>
          </div>
        )}
        {has(legal, 'use_smith') && (
          <div class="fd-choice">
            <button type="button" disabled={busy} onClick={() => send({ type: 'use_smith' })}>
              {m.smith}
            </button>
            <p class="fd-note">{m.smithHelp}</p>
          </div>
        )}
        {has(legal, 'pass') ? (
          <div class="fd-choice">
            <button type="button" disabled={busy} onClick={() => send({ type: 'pass' })}>
              {m.pass}
            </button>
            <p class="fd-note">{m.passHelp}</p>
          </div>
        ) : (
          <p class="fd-note">{m.noPass}</p>
        )}
      </div>
      {has(legal, 'bid') && (
        <BidComposer seat={mySeat} legal={legal} busy={busy} draft={draft} onBid={(horseshoes: BidHorseshoe[]) => act({ type: 'bid', horseshoes })} />
      )}
    </div>
  );
}

function ReturnPanel({ legal, busy, send, m, mySeat }: PanelProps) {
  const { lang } = useLang();
  const [picked, setPicked] = useState<number[]>([]);
  // Keep only picks that still name a card in hand.
  const chosen = picked.filter((i) => i < legal.returnable.length).slice(0, 2);
  const toggle = (i: number) =>
    setPicked(chosen.includes(i) ? chosen.filter((j) => j !== i) : chosen.length < 2 ? [...chosen, i] : chosen);
  return (
    <div>
      <h4>{m.returnTitle}</h4>
      <p class="fd-note">{m.returnHelp}</p>
      <ul class="fd-cards" data-hand-of={mySeat}>
        {legal.returnable.map((colour, i) => {
          const at = chosen.indexOf(i);
          return (
            <li key={i}>
              <button
                type="button"
                class="fd-card-toggle secondary"
                aria-pressed={at >= 0 ? 'true' : 'false'}
                aria-label={m.pickCard(COLOURS[colour].name[lang], i + 1)}
                data-colour={colour}
                disabled={busy || (at < 0 && chosen.length >= 2)}
                onClick={() => toggle(i)}
              >
                <ShareCard colour={colour} lang={lang} />
                {at >= 0 && <span class="fd-order">{m.order(at + 1)}</span>}
              </button>
            </li>
          );
        })}
      </ul>
      <button
        type="button"
        disabled={busy || chosen.length !== 2}
        onClick={() => send({ type: 'return_shares', cards: chosen.map((i) => legal.returnable[i]!) })}
      >
        {m.putBack}
      </button>
    </div>
  );
}

/** What landing on a space would mean, from the public markers. */
function landing(view: View, id: string, m: M, lang: 'en' | 'ja'): string {
  const space = view.board.spaces.find((s) => s.id === id);
  if (space?.kind === 'ship' && space.colour) {
    const value = view.markers.find((mk) => mk.colour === space.colour)?.value ?? 0;
    return m.landShip(COLOURS[space.colour].name[lang], value);
  }
  return m.landIsland;
}

function DestinationPanel({ view, legal, busy, send, m, seatName }: PanelProps) {
  const { lang } = useLang();
  const declaring = legal.decision === 'declare';
  const name = (id: string) => spaceName(view.board, id, lang);
  const declarations = view.step.step === 'declaration' ? view.step.declarations : [];
  return (
    <div>
      <h4>{declaring ? m.declareTitle : m.moveTitle}</h4>
      <p class="fd-note">{declaring ? m.declareHelp : m.moveHelp}</p>
      {declaring && declarations.length > 0 && (
        <p>
          {m.declared}: {declarations.map((d) => `${seatName(d.seat)} → ${name(d.to)}`).join(lang === 'ja' ? '、' : ', ')}
        </p>
      )}
      <ul class="fd-destinations">
        {legal.destinations.map((to) => (
          <li key={to}>
            <button
              type="button"
              data-destination={to}
              disabled={busy}
              onClick={() => send(declaring ? { type: 'declare', to } : { type: 'move', to })}
            >
              {declaring ? m.declare(name(to)) : m.moveTo(name(to))}
            </button>{' '}
            <small>{landing(view, to, m, lang)}</small>
          </li>
        ))}
      </ul>
    </div>
  );
}

function duration(secs: number, m: M): string {
  return secs >= 3600 ? m.hours(Math.round((secs / 3600) * 10) / 10) : m.minutes(Math.round(secs / 60));
}

function OfferItem({ offer, legal, mySeat, busy, send, m, view, seatName }: PanelProps & { offer: Offer }) {
  const { lang } = useLang();
  const mine = offer.by === mySeat;
  const accepted = legal.accepted.includes(offer.id);
  const rejected = legal.rejected.includes(offer.id);
  const names = (seats: number[]) => seats.map(seatName).join(lang === 'ja' ? '、' : ', ');
  const ja = lang === 'ja';
  const parts = [
    offer.payments.length ? offer.payments.map((p) => m.pays(seatName(p.seat), p.amount)).join(ja ? '、' : ', ') : m.noPayments,
    m.acceptedBy(names(offer.accepted_by)),
    offer.rejected_by.length > 0 ? m.rejectedBy(names(offer.rejected_by)) : '',
    !mine && accepted ? m.youAccept : '',
    rejected ? m.youReject : '',
  ].filter(Boolean);
  return (
    <li data-offer={offer.id}>
      <p>
        <strong>{m.offerLine(offer.id, seatName(offer.by), spaceName(view.board, offer.to, lang))}</strong>
        {ja ? '：' : ': '}
        {parts.join(ja ? '。' : '; ')}
        {ja ? '。' : '.'}
      </p>
      <div class="fd-buttons">
        {!mine && !accepted && has(legal, 'accept_offer') && (
          <button type="button" disabled={busy} onClick={() => send({ type: 'accept_offer', offer: offer.id })}>
            {m.accept(offer.id)}
          </button>
        )}
        {!mine && !rejected && has(legal, 'reject_offer') && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'reject_offer', offer: offer.id })}>
            {m.reject(offer.id)}
          </button>
        )}
        {mine && has(legal, 'withdraw_offer') && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'withdraw_offer', offer: offer.id })}>
            {m.withdraw(offer.id)}
          </button>
        )}
      </div>
    </li>
  );
}

function NegotiationPanel(props: PanelProps) {
  const { view, legal, busy, send, m, seatName } = props;
  const { lang } = useLang();
  const name = (id: string) => spaceName(view.board, id, lang);
  const declarations = view.step.step === 'negotiation' ? view.step.declarations : [];
  const deadline = view.step.step === 'negotiation' ? view.step.deadline_secs : view.options.negotiation_deadline_secs;
  return (
    <div>
      <h4>{m.negotiateTitle}</h4>
      <p class="fd-note">{m.negotiateHelp}</p>
      <p class="fd-note">{m.deadline(duration(deadline, m))}</p>
      {declarations.length > 0 && (
        <p>
          {m.declared}: {declarations.map((d) => `${seatName(d.seat)} → ${name(d.to)}`).join(lang === 'ja' ? '、' : ', ')}
        </p>
      )}
      <h5>{m.offers}</h5>
      {legal.offers.length === 0 ? (
        <p>{m.noOffers}</p>
      ) : (
        <ul class="fd-offers">
          {legal.offers.map((o) => (
            <OfferItem key={o.id} offer={o} {...props} />
          ))}
        </ul>
      )}
      {has(legal, 'make_offer') && <OfferForm {...props} />}
      {has(legal, 'no_agreement') && (
        <div class="fd-choice">
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'no_agreement' })}>
            {m.noAgreement}
          </button>
          <p class="fd-note">{m.noAgreementHelp}</p>
        </div>
      )}
    </div>
  );
}

function OfferForm({ view, legal, busy, send, m, seatName }: PanelProps) {
  const { lang } = useLang();
  const [to, setTo] = useState<string>(legal.destinations[0] ?? '');
  const [amounts, setAmounts] = useState<Record<number, number>>({});
  const target = legal.destinations.includes(to as never) ? to : (legal.destinations[0] ?? '');
  const available = legal.promise_limits.find((p) => p.to === target)?.available ?? 0;
  const payments = legal.payees
    .map((seat) => ({ seat, amount: Math.max(0, Math.floor(amounts[seat] ?? 0)) }))
    .filter((p) => p.amount > 0);
  const total = payments.reduce((sum, p) => sum + p.amount, 0);
  const tooMuch = total > available;
  return (
    <form
      class="fd-offer-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!tooMuch && target) send({ type: 'make_offer', to: target, payments });
      }}
    >
      <fieldset>
        <legend>{m.makeOffer}</legend>
        <label>
          {m.destination}
          <select value={target} onChange={(e) => setTo(e.currentTarget.value)}>
            {legal.destinations.map((d) => (
              <option key={d} value={d}>
                {spaceName(view.board, d, lang)}
              </option>
            ))}
          </select>
        </label>
        {legal.payees.map((seat) => (
          <label key={seat}>
            {m.payTo(seatName(seat))}
            <input
              type="number"
              min={0}
              max={available}
              step={1}
              value={amounts[seat] ?? 0}
              onInput={(e) => setAmounts({ ...amounts, [seat]: Number(e.currentTarget.value) || 0 })}
            />
          </label>
        ))}
        <p class={tooMuch ? 'error' : 'fd-note'} aria-live="polite">
          {tooMuch ? m.tooMuch : m.available(available)}
        </p>
        <button type="submit" disabled={busy || tooMuch || !target}>
          {m.sendOffer}
        </button>
      </fieldset>
    </form>
  );
}

function ExtraRoundPanel({ legal, busy, send, m, mySeat, act, draft }: PanelProps) {
  return (
    <div>
      <h4>{m.extraTitle}</h4>
      <p class="fd-note">{m.extraHelp}</p>
      {has(legal, 'bid') && (
        <BidComposer
          seat={mySeat}
          legal={legal}
          busy={busy}
          submitLabel={m.extraBid}
          draft={draft}
          onBid={(horseshoes: BidHorseshoe[]) => act({ type: 'bid', horseshoes })}
        />
      )}
      {has(legal, 'drop_out') && (
        <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'drop_out' })}>
          {m.dropOut}
        </button>
      )}
    </div>
  );
}

function IncomePanel({ legal, busy, send, m }: PanelProps) {
  const { lang } = useLang();
  return (
    <div>
      <h4>{m.incomeTitle}</h4>
      <p class="fd-note">{m.incomeHelp}</p>
      <div class="fd-buttons">
        {has(legal, 'take_income') &&
          legal.income.map((choice) => (
            <button
              type="button"
              key={choice.colour}
              data-colour={choice.colour}
              disabled={busy}
              onClick={() => send({ type: 'take_income', colour: choice.colour })}
            >
              {COLOURS[choice.colour].letter[lang]} · {m.takeIncome(COLOURS[choice.colour].name[lang], choice.amount)}
            </button>
          ))}
        {has(legal, 'decline_income') && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'decline_income' })}>
            {m.decline}
          </button>
        )}
      </div>
    </div>
  );
}
