// Every action the rules allow the caller now, as controls built from `legal` only. The
// half-made choice (company, bid, link, path, city) is kept by the board, so it survives
// a new version of the game arriving while the player is still choosing.
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import {
  COLOUR,
  COMPANY,
  type CityId,
  type Command,
  type Company,
  type Legal,
  type LegalStep,
  type LinkId,
  type View,
  companyLabel,
  linkLabel,
} from './model';

const msgs = defineMessages({
  yourMove: { en: 'Your move', ja: 'あなたの手番' },
  openTitle: { en: 'Open an auction, or pass the pawn', ja: '競りを始めるか、スタートプレイヤー駒を渡す' },
  company: { en: 'Company', ja: '会社' },
  openingBid: { en: 'Opening bid (cubes)', ja: '最初の入札（キューブ）' },
  open: { en: 'Open the auction', ja: '競りを始める' },
  passPawn: { en: 'Pass the pawn', ja: '駒を左へ渡す' },
  noCubes: { en: 'You hold no cubes: you can only pass the pawn.', ja: 'キューブがないので、駒を渡すことしかできません。' },
  youHold: { en: (n: number) => `You hold ${count(n, 'cube')}.`, ja: (n: number) => `あなたのキューブ：${n}個` },
  bidTitle: { en: (c: string) => `Auction for ${c}`, ja: (c: string) => `${c}の競り` },
  highBid: {
    en: (n: number, who: string) => `High bid: ${count(n, 'cube')} by ${who}.`,
    ja: (n: number, who: string) => `最高入札：${who}の${n}キューブ`,
  },
  yourBid: { en: 'Your bid (cubes)', ja: 'あなたの入札（キューブ）' },
  bid: { en: (n: number) => `Bid ${n}`, ja: (n: number) => `${n}で入札` },
  bidInvalid: { en: 'Bid', ja: '入札' },
  range: { en: (lo: number, hi: number) => (lo === hi ? count(hi, 'cube') : `${lo} to ${hi} cubes`), ja: (lo: number, hi: number) => `${lo}〜${hi}キューブ` },
  passBid: { en: 'Pass (drop out of this auction)', ja: 'パス（この競りから降りる）' },
  cannotOutbid: { en: 'You hold too few cubes to outbid: you can only pass.', ja: 'キューブが足りず上回れないので、パスしかできません。' },
  buildTitle: { en: (c: string) => `Build for ${c}`, ja: (c: string) => `${c}の建設` },
  buildFacts: {
    en: (cubes: number, track: number) => `Its box holds ${count(cubes, 'cube')}; ${count(track, 'track piece')} left. Choose a link here or on the map (highlighted).`,
    ja: (cubes: number, track: number) => `箱のキューブ${cubes}個、残りの線路${track}本。下の一覧か地図（強調表示）から区間を選んでください。`,
  },
  option: {
    en: (link: string, cost: number, profit: number, cities: string) =>
      `${link} — cost ${cost} — +$${profit}${cities ? ` (${cities})` : ' (no new city)'}`,
    ja: (link: string, cost: number, profit: number, cities: string) =>
      `${link} — 費用${cost} — 利益+$${profit}${cities ? `（${cities}）` : '（新しい都市なし）'}`,
  },
  bonus: { en: ' + transcontinental bonus $50', ja: ' ＋大陸横断ボーナス$50' },
  build: { en: (link: string) => `Build ${link}`, ja: (link: string) => `${link}を建設` },
  buildable: { en: 'Links it may build (most profitable first)', ja: '建設できる区間（利益の大きい順）' },
  chooseLink: { en: 'Choose a link first', ja: 'まず区間を選んでください' },
  passBuild: { en: 'Pass (no link can be built)', ja: 'パス（建設できる区間なし）' },
  pathTitle: { en: 'Transcontinental: choose the path that earns the bonus', ja: '大陸横断：ボーナスを得るルートを選ぶ' },
  pathExplain: {
    en: (c: string) => `${c} joined New York and San Francisco, and several paths tie. The completing company gets +$50, every other company on the chosen path +$30.`,
    ja: (c: string) => `${c}がニューヨークとサンフランシスコを結び、ルートが同点で複数あります。完成させた会社に+$50、選んだルート上のほかの会社に+$30。`,
  },
  pathOption: {
    en: (bonuses: string, links: number) => `${bonuses} — ${count(links, 'link')}`,
    ja: (bonuses: string, links: number) => `${bonuses}（${links}区間）`,
  },
  choosePath: { en: 'Choose this path', ja: 'このルートに決める' },
  goodsTitle: { en: (c: string) => `Take goods for ${c}`, ja: (c: string) => `${c}の商品を取る` },
  goodsExplain: {
    en: 'Take one goods cube from a city on its network (here or on the map).',
    ja: '路線網の都市から商品キューブを1つ取ります（一覧か地図から）。',
  },
  goodsOption: { en: (city: string, colour: string) => `${city} — ${colour}`, ja: (city: string, colour: string) => `${city} — ${colour}` },
  take: { en: (city: string) => `Take the cube of ${city}`, ja: (city: string) => `${city}の商品を取る` },
  chooseCity: { en: 'Choose a city first', ja: 'まず都市を選んでください' },
  passDelivery: { en: 'Pass (no goods can be taken)', ja: 'パス（取れる商品なし）' },
});

/** The player's half-made choice; each part is used only while `legal` still allows it. */
export interface Choice {
  company?: Company;
  /** The bid as typed (kept as text, so a field being edited is not rewritten). */
  bid?: string;
  link?: LinkId;
  path?: number;
  city?: CityId;
}

export interface ControlsProps {
  view: View;
  legal: Exclude<Legal, { step: 'wait' }>;
  choice: Choice;
  setChoice: (change: Partial<Choice>) => void;
  send: (command: Command) => void;
  busy: boolean;
  seatName: (seat: number) => string;
}

/** The typed bid as a whole number within [min, max], or null when it is not one. */
export function parseBid(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** A number of cubes, with the range it must be in said beside it when it is outside. */
function CubesField(props: { label: string; min: number; max: number; text: string; onText: (text: string) => void }) {
  const m = useMessages(msgs);
  const valid = parseBid(props.text, props.min, props.max) !== null;
  return (
    <label>
      {props.label}
      <input
        type="number"
        inputMode="numeric"
        min={props.min}
        max={props.max}
        value={props.text}
        aria-invalid={!valid}
        aria-describedby="sd-bid-range"
        onInput={(e) => props.onText(e.currentTarget.value)}
      />
      <span id="sd-bid-range" class={valid ? 'sd-hint' : 'sd-hint error'}>
        {m.range(props.min, props.max)}
      </span>
    </label>
  );
}

export function Controls(props: ControlsProps) {
  const m = useMessages(msgs);
  const { legal } = props;
  return (
    <section class="sd-controls" aria-labelledby="sd-your-move" data-testid="sd-controls" data-step={legal.step} data-controls tabIndex={-1}>
      <h2 id="sd-your-move">{m.yourMove}</h2>
      {legal.step === 'open_auction' && <OpenAuction {...props} legal={legal} />}
      {legal.step === 'bid' && <Bid {...props} legal={legal} />}
      {legal.step === 'build' && <Build {...props} legal={legal} />}
      {legal.step === 'choose_path' && <ChoosePath {...props} legal={legal} />}
      {legal.step === 'take_goods' && <TakeGoods {...props} legal={legal} />}
    </section>
  );
}

type StepProps<S extends Legal['step']> = Omit<ControlsProps, 'legal'> & { legal: LegalStep<S> };

function OpenAuction({ legal, choice, setChoice, send, busy }: StepProps<'open_auction'>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const company = choice.company && legal.companies.includes(choice.company) ? choice.company : legal.companies[0];
  const text = choice.bid ?? String(legal.min_bid);
  const bid = parseBid(text, legal.min_bid, legal.max_bid);
  const canOpen = legal.companies.length > 0 && legal.max_bid >= legal.min_bid;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (canOpen && company && bid !== null) send({ type: 'open_auction', company, bid });
      }}
    >
      <h3>{m.openTitle}</h3>
      <p>{m.youHold(legal.cubes)}</p>
      {canOpen ? (
        <>
          <fieldset>
            <legend>{m.company}</legend>
            <div class="sd-choices">
              {legal.companies.map((c) => (
                <label key={c} class="sd-choice">
                  <input type="radio" name="sd-company" checked={c === company} onChange={() => setChoice({ company: c })} />
                  <span class="sd-mark chip" style={{ background: COMPANY[c].fill, color: COMPANY[c].ink }}>
                    {COMPANY[c].mark[lang]}
                  </span>{' '}
                  {companyLabel(c, lang)}
                </label>
              ))}
            </div>
          </fieldset>
          <CubesField label={m.openingBid} min={legal.min_bid} max={legal.max_bid} text={text} onText={(bid) => setChoice({ bid })} />
        </>
      ) : (
        <p>{m.noCubes}</p>
      )}
      <div class="sd-buttons">
        {canOpen && (
          <button type="submit" disabled={busy || bid === null}>
            {m.open}
          </button>
        )}
        {legal.can_pass && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'pass_pawn' })}>
            {m.passPawn}
          </button>
        )}
      </div>
    </form>
  );
}

function Bid({ legal, choice, setChoice, send, busy, seatName }: StepProps<'bid'>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const text = choice.bid ?? String(legal.min_bid);
  const bid = parseBid(text, legal.min_bid, legal.cubes);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (legal.can_bid && bid !== null) send({ type: 'bid', bid });
      }}
    >
      <h3>{m.bidTitle(companyLabel(legal.company, lang))}</h3>
      <p>
        {m.highBid(legal.high_bid, seatName(legal.high_bidder))} {m.youHold(legal.cubes)}
      </p>
      {legal.can_bid ? (
        <CubesField label={m.yourBid} min={legal.min_bid} max={legal.cubes} text={text} onText={(bid) => setChoice({ bid })} />
      ) : (
        <p>{m.cannotOutbid}</p>
      )}
      <div class="sd-buttons">
        {legal.can_bid && (
          <button type="submit" disabled={busy || bid === null}>
            {bid === null ? m.bidInvalid : m.bid(bid)}
          </button>
        )}
        {legal.can_pass && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'pass_bid' })}>
            {m.passBid}
          </button>
        )}
      </div>
    </form>
  );
}

/** The build options, most profitable first (then cheapest). */
export function sortedOptions(legal: LegalStep<'build'>) {
  return [...legal.links].sort((a, b) => b.profit - a.profit || a.cost - b.cost || a.link.localeCompare(b.link));
}

/** The words for one build option (also the map's label for its link). */
export function useOptionText() {
  const m = useMessages(msgs);
  return (o: LegalStep<'build'>['links'][number]) =>
    m.option(linkLabel(o.link), o.cost, o.profit, o.new_cities.join(', ')) + (o.transcontinental ? m.bonus : '');
}

function Build({ legal, choice, setChoice, send, busy }: StepProps<'build'>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const text = useOptionText();
  const options = sortedOptions(legal);
  const link = options.some((o) => o.link === choice.link) ? choice.link : undefined;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (link) send({ type: 'build', link });
      }}
    >
      <h3>{m.buildTitle(companyLabel(legal.company, lang))}</h3>
      <p>{m.buildFacts(legal.cubes, legal.track_left)}</p>
      {options.length > 0 && (
        <fieldset>
          <legend>{m.buildable}</legend>
          <div class="sd-choices column">
            {options.map((o) => (
              <label key={o.link} class="sd-choice">
                <input type="radio" name="sd-link" checked={o.link === link} onChange={() => setChoice({ link: o.link })} />{' '}
                {text(o)}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <div class="sd-buttons">
        {options.length > 0 && (
          <button type="submit" disabled={busy || !link}>
            {link ? m.build(linkLabel(link)) : m.chooseLink}
          </button>
        )}
        {legal.can_pass && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'pass_build' })}>
            {m.passBuild}
          </button>
        )}
      </div>
    </form>
  );
}

function ChoosePath({ legal, choice, setChoice, send, busy }: StepProps<'choose_path'>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const index = choice.path !== undefined && choice.path < legal.options.length ? choice.path : 0;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        send({ type: 'choose_path', index });
      }}
    >
      <h3>{m.pathTitle}</h3>
      <p>{m.pathExplain(companyLabel(legal.company, lang))}</p>
      <fieldset>
        <legend>{m.pathTitle}</legend>
        <div class="sd-choices column">
          {legal.options.map((o, i) => (
            <label key={i} class="sd-choice">
              <input type="radio" name="sd-path" checked={i === index} onChange={() => setChoice({ path: i })} />{' '}
              {m.pathOption(
                // The completing company earns $50, every other company on the path $30.
                o.companies.map((c) => `${companyLabel(c, lang)} +$${c === legal.company ? 50 : 30}`).join(', '),
                o.links.length,
              )}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="sd-buttons">
        <button type="submit" disabled={busy}>
          {m.choosePath}
        </button>
      </div>
    </form>
  );
}

function TakeGoods({ view, legal, choice, setChoice, send, busy }: StepProps<'take_goods'>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const city = legal.goods.some((g) => g.city === choice.city) ? choice.city : undefined;
  const cityName = (id: CityId) => view.map.cities.find((c) => c.id === id)?.name ?? id;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (city) send({ type: 'take_goods', city });
      }}
    >
      <h3>{m.goodsTitle(companyLabel(legal.company, lang))}</h3>
      {legal.goods.length > 0 && (
        <fieldset>
          <legend>{m.goodsExplain}</legend>
          <div class="sd-choices column">
            {legal.goods.map((g) => (
              <label key={g.city} class="sd-choice">
                <input type="radio" name="sd-city" checked={g.city === city} onChange={() => setChoice({ city: g.city })} />{' '}
                <span class="sd-cube" style={{ background: COLOUR[g.colour].fill, color: COLOUR[g.colour].ink }}>
                  {COLOUR[g.colour].mark[lang]}
                </span>{' '}
                {m.goodsOption(`${cityName(g.city)} (${g.city})`, COLOUR[g.colour].name[lang])}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <div class="sd-buttons">
        {legal.goods.length > 0 && (
          <button type="submit" disabled={busy || !city}>
            {city ? m.take(cityName(city)) : m.chooseCity}
          </button>
        )}
        {legal.can_pass && (
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'pass_delivery' })}>
            {m.passDelivery}
          </button>
        )}
      </div>
    </form>
  );
}
