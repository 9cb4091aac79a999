// Steel Driver's page: the map, the company boxes, the players, and the controls for what
// `legal` allows the caller now. Everything shown comes from the caller's view and legal.
import { useState } from 'preact/hooks';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import type { BoardProps, EventOut, GameModule } from '../types';
import { Controls, sortedOptions, useOptionText, type Choice } from './Controls';
import { describe } from './describe';
import { RULE_ERRORS } from './errors';
import { MapView, type MapPick } from './MapView';
import { COLOUR, type Command, type Event, type Legal, type Options, type View, companyLabel } from './model';
import { Outcome } from './Outcome';
import { OptionsEditor } from './OptionsEditor';
import { OrderComposer, describeOrder, type Order } from './Orders';
import { CompanyBoxes, PlayersTable } from './Tables';
import './steel-driver.css';

const msgs = defineMessages({
  last: { en: 'Last:', ja: '直前：' },
  round: { en: (r: number, of: number) => `Round ${r} of ${of}`, ja: (r: number, of: number) => `第${r}ラウンド（全${of}）` },
  setup: { en: 'Setting up', ja: '準備中' },
  auction: { en: 'Auctions', ja: '競り' },
  building: { en: 'Building', ja: '建設' },
  delivery: { en: 'Goods delivery', ja: '商品の出荷' },
  finished: { en: 'Game over', ja: 'ゲーム終了' },
  toAct: { en: (who: string) => `${who} to act`, ja: (who: string) => `${who}の手番` },
  youToAct: { en: 'Your turn', ja: 'あなたの手番です' },
  forCompany: { en: (c: string) => `for ${c}`, ja: (c: string) => `（${c}）` },
  auctionFor: {
    en: (c: string, bid: number, who: string) => `Auction for ${c}: ${count(bid, 'cube')} by ${who}`,
    ja: (c: string, bid: number, who: string) => `${c}の競り：${who}の${bid}キューブ`,
  },
  transcontinental: {
    en: (companies: string) => `The transcontinental line is complete (its path, outlined on the map, runs over ${companies}).`,
    ja: (companies: string) => `大陸横断線は完成しています（地図に縁取りしたルート上の会社：${companies}）。`,
  },
  transcontinentalOpen: {
    en: 'The transcontinental bonus (New York–San Francisco) is still to be won.',
    ja: '大陸横断ボーナス（ニューヨーク〜サンフランシスコ）はまだ獲得されていません。',
  },
  goodsCity: {
    en: (city: string, colour: string) => `Take the ${colour} goods of ${city}`,
    ja: (city: string, colour: string) => `${city}の${colour}の商品を取る`,
  },
});

type Props = BoardProps<View, Legal, Command>;

function Board({ detail, view, legal, mySeat, act, busy, past, seatName, events }: Props) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const optionText = useOptionText();
  // The half-made choice lives here, above the controls and the map, so that it survives a
  // new `detail` (another player's move, a reload after 409); each control uses a part only
  // while `legal` still allows it.
  const [choice, setChoiceState] = useState<Choice>({});
  const setChoice = (change: Partial<Choice>) => setChoiceState((c) => ({ ...c, ...change }));
  // The game page shows a refusal in words; the choice is kept so it can be sent again.
  // Once the move is taken the choice that made it is dropped, unless the player has made a
  // new one meanwhile: the next decision can be on the screen (the stream brings it) before
  // the move's own answer and reload are in, and a city picked for it must stay picked.
  const send = (command: Command) => {
    const made = choice;
    act(command).then(
      () => setChoiceState((now) => (now === made ? {} : now)),
      () => {},
    );
  };
  const active = !past && legal && legal.step !== 'wait' ? legal : null;

  const pick: MapPick = {};
  if (active?.step === 'build') {
    pick.links = new Map(sortedOptions(active).map((o) => [o.link, optionText(o)]));
    pick.linkNotes = new Map(active.links.map((o) => [o.link, `+$${o.profit}${o.transcontinental ? ' +$50' : ''}`]));
    pick.selectedLink = active.links.some((o) => o.link === choice.link) ? choice.link : null;
    pick.onLink = (link) => setChoice({ link });
  } else if (active?.step === 'take_goods') {
    pick.cities = new Map(
      active.goods.map((g) => [g.city, m.goodsCity(g.city, COLOUR[g.colour].name[lang])]),
    );
    pick.selectedCity = active.goods.some((g) => g.city === choice.city) ? choice.city : null;
    pick.onCity = (city) => setChoice({ city });
  }
  if (active?.step === 'choose_path') {
    pick.path = active.options[choice.path !== undefined && choice.path < active.options.length ? choice.path : 0]?.links;
  } else if (view.transcontinental) {
    pick.path = view.transcontinental.links;
  }

  return (
    <div class="sd-board" data-testid="sd-board" data-version={detail.at_version}>
      <Status view={view} mySeat={mySeat} seatName={seatName} />
      <LastMove events={events} seatName={seatName} />
      {/* Beside the map on a wide screen; on a narrow one the controls come first. */}
      <div class="sd-main">
        {active && mySeat !== null && (
          <Controls view={view} legal={active} choice={choice} setChoice={setChoice} send={send} busy={busy} seatName={seatName} />
        )}
        <div class="sd-map-col">
          <MapView view={view} pick={pick} />
          <p class="sd-hint">
            {view.transcontinental
              ? m.transcontinental(view.transcontinental.companies.map((c) => companyLabel(c, lang)).join(', '))
              : m.transcontinentalOpen}
          </p>
        </div>
        <PlayersTable view={view} seatName={seatName} mySeat={mySeat} />
      </div>
      <CompanyBoxes view={view} seatName={seatName} />
    </div>
  );
}

/** What just happened: the latest event of the game in words. */
function LastMove({ events, seatName }: { events?: EventOut[]; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const last = [...(events ?? [])].reverse().find((e) => !e.type.startsWith('kontor.'));
  if (!last) return null;
  return (
    <p class="sd-last" data-testid="sd-last">
      {m.last} {describe(last.data as Event, lang, seatName)}
    </p>
  );
}

/** Round, phase and who must act, announced when it changes. */
function Status({ view, mySeat, seatName }: { view: View; mySeat: number | null; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const phase = m[view.phase];
  const who = view.pending.map((s) => (s === mySeat ? null : seatName(s))).filter(Boolean).join(', ');
  const mine = mySeat !== null && view.pending.includes(mySeat);
  return (
    <p class="sd-status" aria-live="polite" data-testid="sd-status">
      <strong>{view.phase === 'finished' ? m.finished : `${m.round(view.round, view.rounds)} · ${phase}`}</strong>
      {view.auction && (
        <span> · {m.auctionFor(companyLabel(view.auction.company, lang), view.auction.high_bid, seatName(view.auction.high_bidder))}</span>
      )}
      {(mine || who) && (
        <span data-testid="sd-to-act">
          {' · '}
          {mine ? m.youToAct : m.toAct(who)}
          {view.active_company && ` ${m.forCompany(companyLabel(view.active_company, lang))}`}
        </span>
      )}
    </p>
  );
}

export const steelDriver: GameModule<View, Legal, Command, Options, Event, Order> = {
  kind: 'steel-driver',
  minSeats: 3,
  maxSeats: 6,
  Board,
  OptionsEditor,
  describe,
  // The game page shows it above the board once the game is over.
  Outcome,
  errorMessages: RULE_ERRORS,
  describeOrder,
  OrderComposer,
};
