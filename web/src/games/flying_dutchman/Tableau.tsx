// Everything public around the sea: the value track with the six markers and the round
// marker, the lucky number and dice, each player's public information (and the caller's own
// hand), and the bids revealed this round.
import { count, defineMessages, useLang, useMessages, type Lang } from '../../i18n';
import { COLOURS, COLOUR_ORDER, Horseshoe, ShareCard, bidValue, type PlayerView, type View } from './common';
import { Scrollable } from '../../components/Scrollable';

const msgs = defineMessages({
  track: { en: 'Value track', ja: '価値トラック' },
  roundMarker: { en: 'Round marker', ja: 'ラウンドマーカー' },
  trackNote: {
    en: (landings: number, end: number) => `${count(landings, 'ship landing')} so far; the game ends when the round marker reaches ${end}.`,
    ja: (landings: number, end: number) => `これまでの船への着地：${landings}回。ラウンドマーカーが${end}に達するとゲーム終了。`,
  },
  round: { en: (n: number) => `Round ${n}`, ja: (n: number) => `第${n}ラウンド` },
  lucky: { en: 'Lucky number', ja: 'ラッキーナンバー' },
  dice: { en: (a: number, b: number) => `dice ${a} + ${b}`, ja: (a: number, b: number) => `サイコロ ${a} + ${b}` },
  stack: { en: (n: number) => `Share stack: ${n}`, ja: (n: number) => `株の山札：${n}枚` },
  pool: { en: (n: number) => `Horseshoe pool: ${n}`, ja: (n: number) => `蹄鉄の置き場：${n}個` },
  players: { en: 'Players', ja: 'プレイヤー' },
  player: { en: 'Player', ja: 'プレイヤー' },
  coins: { en: 'Ducats', ja: 'ドゥカート' },
  shares: { en: 'Shares', ja: '株' },
  horseshoes: { en: 'Horseshoes', ja: '蹄鉄' },
  smith: { en: 'Smith', ja: '鍛冶屋' },
  kontor: { en: 'Kontor', ja: '商館' },
  thisRound: { en: 'This round', ja: 'このラウンド' },
  start: { en: 'start player', ja: 'スタートプレイヤー' },
  toAct: { en: 'to act', ja: '手番' },
  you: { en: 'you', ja: 'あなた' },
  bankrupt: { en: 'bankrupt', ja: '破産' },
  actKontor: { en: 'Kontor exchange', ja: '商館で交換' },
  actSmith: { en: 'smith', ja: '鍛冶屋' },
  actBid: { en: (n: number) => `bid (${count(n, 'horseshoe')})`, ja: (n: number) => `入札（蹄鉄${n}個）` },
  actPass: { en: 'passed', ja: 'パス' },
  myHand: { en: 'My hand', ja: '自分の手札' },
  myShares: { en: 'My share cards', ja: '自分の株券' },
  myShoes: { en: 'My horseshoes', ja: '自分の蹄鉄' },
  noShoes: { en: 'none', ja: 'なし' },
  sealed: { en: 'My sealed bid', ja: '自分の伏せた入札' },
  extraChoice: { en: 'My secret choice', ja: '自分の秘密の選択' },
  droppedOut: { en: 'drop out', ja: '降りる' },
  worth: { en: (n: number) => `worth ${n}`, ja: (n: number) => `価値 ${n}` },
  reveal: { en: 'Bids revealed this round', ja: 'このラウンドで公開された入札' },
  valid: { en: 'valid', ja: '有効' },
  invalid: { en: 'over the lucky number: invalid', ja: 'ラッキーナンバー超過：無効' },
  value: { en: (n: number) => `value ${String(n).replace('-', '−')}`, ja: (n: number) => `値 ${String(n).replace('-', '−')}` },
  publicHand: { en: (n: string) => `${n}'s cards (public)`, ja: (n: string) => `${n}の手札（公開）` },
});

export function ValueTrack({ view }: { view: View }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const end = view.value_track[view.value_track.length - 1] ?? 18;
  return (
    <section class="fd-track" aria-label={m.track}>
      <h3>{m.track}</h3>
      <ol class="fd-chests">
        {view.value_track.map((chest) => {
          const here = view.markers.filter((mk) => mk.value === chest);
          const round = view.round_marker === chest;
          return (
            <li key={chest} class={round ? 'fd-chest fd-chest-round' : 'fd-chest'} data-chest={chest}>
              <span class="fd-chest-value">{chest}</span>
              <span class="fd-chest-markers">
                {here.map((mk) => (
                  <span
                    key={mk.colour}
                    class={`fd-marker fd-${mk.colour}`}
                    data-marker={mk.colour}
                    title={`${COLOURS[mk.colour].name[lang]} ${chest}`}
                  >
                    {COLOURS[mk.colour].letter[lang]}
                    <span class="visually-hidden">
                      {COLOURS[mk.colour].name[lang]} {chest}
                    </span>
                  </span>
                ))}
                {round && (
                  <span class="fd-marker fd-round" data-marker="round" title={m.roundMarker}>
                    ◆<span class="visually-hidden">{m.roundMarker}</span>
                  </span>
                )}
              </span>
            </li>
          );
        })}
      </ol>
      <p class="fd-note">
        ◆ = {m.roundMarker}. {m.trackNote(view.ship_landings, end)}
      </p>
    </section>
  );
}

export function RoundInfo({ view }: { view: View }) {
  const m = useMessages(msgs);
  return (
    <p class="fd-roundinfo">
      <span>{m.round(view.round)}</span>
      <span class="fd-lucky" data-testid="fd-lucky">
        {m.lucky}: <strong>{view.lucky_number}</strong> <small>({m.dice(view.die_a, view.die_b)})</small>
      </span>
      <span>{m.stack(view.share_stack_size)}</span>
      <span>{m.pool(view.pool_size)}</span>
    </p>
  );
}

function actionText(p: PlayerView, m: ReturnType<typeof useMessages<typeof msgs>>): string {
  switch (p.action?.kind) {
    case 'kontor':
      return m.actKontor;
    case 'smith':
      return m.actSmith;
    case 'bid':
      return m.actBid(p.action.size);
    case 'pass':
      return m.actPass;
    default:
      return '—';
  }
}

export function Players({
  view,
  mySeat,
  seatName,
  pending,
}: {
  view: View;
  mySeat: number | null;
  seatName: (seat: number) => string;
  pending: number[];
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  return (
    <section class="fd-players" aria-label={m.players}>
      <h3>{m.players}</h3>
      <Scrollable class="fd-table-wrap" label={m.players}>
        <table>
          <thead>
            <tr>
              <th scope="col">{m.player}</th>
              <th scope="col">{m.coins}</th>
              <th scope="col">{m.shares}</th>
              <th scope="col">{m.horseshoes}</th>
              <th scope="col">{m.smith}</th>
              <th scope="col">{m.kontor}</th>
              <th scope="col">{m.thisRound}</th>
            </tr>
          </thead>
          <tbody>
            {view.players.map((p) => (
              <tr
                key={p.seat}
                data-seat={p.seat}
                class={[pending.includes(p.seat) ? 'fd-pending' : '', p.bankrupt ? 'fd-bankrupt' : ''].join(' ')}
              >
                <th scope="row">
                  {pending.includes(p.seat) && (
                    <span title={m.toAct}>
                      <span aria-hidden="true">▶ </span>
                      <span class="visually-hidden">{m.toAct}: </span>
                    </span>
                  )}
                  {seatName(p.seat)}
                  {p.seat === view.start_player && (
                    <span title={m.start}>
                      <span aria-hidden="true"> ★</span>
                      <span class="visually-hidden"> ({m.start})</span>
                    </span>
                  )}
                  {p.seat === mySeat && <small> ({m.you})</small>}
                  {p.bankrupt && <small> · {m.bankrupt}</small>}
                </th>
                <td data-field="coins">{p.coins}</td>
                <td data-field="shares">{p.share_count}</td>
                <td data-field="horseshoes">{p.horseshoe_count}</td>
                <td data-field="smith">{p.smith_cards}</td>
                <td data-field="kontor">{p.kontor_cards}</td>
                <td data-field="action">{actionText(p, m)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scrollable>
      <p class="fd-note">
        ▶ {m.toAct} · ★ {m.start}
      </p>
      {view.players
        .filter((p) => p.seat !== mySeat && (p.shares || p.horseshoes))
        .map((p) => (
          <div key={p.seat} class="fd-public-hand" data-hand-of={p.seat}>
            <h4>{m.publicHand(seatName(p.seat))}</h4>
            <Hand player={p} lang={lang} />
          </div>
        ))}
    </section>
  );
}

function Hand({ player, lang }: { player: PlayerView; lang: Lang }) {
  return (
    <p class="fd-hand">
      {(player.shares ?? []).map((c, i) => (
        <ShareCard key={`s${i}`} colour={c} lang={lang} />
      ))}
      {(player.horseshoes ?? []).map((h, i) => (
        <Horseshoe key={`h${i}`} face={h} lang={lang} />
      ))}
    </p>
  );
}

/** The caller's own share cards (with what each is worth now) and horseshoes. */
export function MyHand({ view, me }: { view: View; me: PlayerView }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const worth = (c: string) => view.markers.find((mk) => mk.colour === c)?.value ?? 0;
  const shares = [...(me.shares ?? [])].sort((a, b) => COLOUR_ORDER.indexOf(a) - COLOUR_ORDER.indexOf(b));
  return (
    <section class="fd-myhand" aria-label={m.myHand} data-hand-of={me.seat} data-testid="fd-my-hand">
      <h3>{m.myHand}</h3>
      <div>
        <h4>{m.myShares}</h4>
        <p class="fd-hand" data-testid="fd-my-shares">
          {shares.map((c, i) => (
            <ShareCard key={i} colour={c} lang={lang} note={m.worth(worth(c))} />
          ))}
        </p>
      </div>
      <div>
        <h4>{m.myShoes}</h4>
        <p class="fd-hand" data-testid="fd-my-shoes">
          {(me.horseshoes ?? []).length === 0 && m.noShoes}
          {(me.horseshoes ?? []).map((h, i) => (
            <Horseshoe key={i} face={h} lang={lang} />
          ))}
        </p>
      </div>
      {me.sealed_bid && (
        <div>
          <h4>{m.sealed}</h4>
          <p class="fd-hand">
            {me.sealed_bid.map((h, i) => (
              <Horseshoe key={i} face={h.value} sign={h.sign ?? 'plus'} lang={lang} />
            ))}{' '}
            = {bidValue(me.sealed_bid)}
          </p>
        </div>
      )}
      {me.extra_choice && (
        <div>
          <h4>{m.extraChoice}</h4>
          <p class="fd-hand">
            {me.extra_choice.kind === 'drop_out'
              ? m.droppedOut
              : me.extra_choice.horseshoes.map((h, i) => <Horseshoe key={i} face={h.value} sign={h.sign ?? 'plus'} lang={lang} />)}
            {me.extra_choice.kind === 'bid' && ` = ${bidValue(me.extra_choice.horseshoes)}`}
          </p>
        </div>
      )}
    </section>
  );
}

export function Reveal({ view, seatName }: { view: View; seatName: (seat: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  if (view.last_reveal.length === 0) return null;
  return (
    <section class="fd-reveal" aria-label={m.reveal}>
      <h3>{m.reveal}</h3>
      <ul>
        {view.last_reveal.map((bid) => (
          <li key={bid.seat} data-reveal-of={bid.seat}>
            {seatName(bid.seat)}:{' '}
            {bid.horseshoes.map((h, i) => (
              <Horseshoe key={i} face={h.value} sign={h.sign ?? 'plus'} lang={lang} />
            ))}{' '}
            = {m.value(bid.value)} · {bid.valid ? `✓ ${m.valid}` : `✗ ${m.invalid}`}
          </li>
        ))}
      </ul>
    </section>
  );
}
