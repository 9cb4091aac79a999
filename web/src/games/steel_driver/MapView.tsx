// The map, drawn from the map data in the view: cities (goods colour, value, start cities
// as hexagons), links with their costs, and each company's track in its colour and its own
// dash pattern, marked with the company's letters. Links and cities the player may pick now
// are highlighted and can be chosen by click or keyboard.
import { useMemo } from 'preact/hooks';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { COLOUR, COMPANIES, COMPANY, COLOURS, type CityId, type LinkId, type View, companyLabel, linkLabel } from './model';
import { WIDTH, layoutCities, type Point } from './layout';
import { Scrollable } from '../../components/Scrollable';

const msgs = defineMessages({
  map: { en: 'Map', ja: '地図' },
  summary: {
    en: (cities: number, built: number, links: number) => `Map of ${count(cities, 'city', 'cities')}; ${built} of ${count(links, 'link')} built`,
    ja: (cities: number, built: number, links: number) => `${cities}都市の地図（${links}区間中${built}区間に線路）`,
  },
  start: { en: 'start city', ja: '始発都市' },
  cost: { en: (n: number) => `cost ${n}`, ja: (n: number) => `費用${n}` },
  builtBy: { en: (c: string) => `built by ${c}`, ja: (c: string) => `${c}社の線路` },
  goodsCube: { en: 'goods cube', ja: '商品キューブあり' },
  legend: { en: 'Legend', ja: '凡例' },
  startCity: { en: 'Start city', ja: '始発都市' },
  city: { en: 'City', ja: '都市' },
  legalLink: { en: 'Link you may build', ja: '建設できる区間' },
  goodsHere: { en: 'Goods cube', ja: '商品キューブ' },
  pathKey: { en: 'Transcontinental path', ja: '大陸横断ルート' },
});

export interface MapPick {
  /** Links to highlight as choosable, with an accessible description of each. */
  links?: Map<LinkId, string>;
  /** A short note drawn beside a choosable link (the profit it would bring). */
  linkNotes?: Map<LinkId, string>;
  selectedLink?: LinkId | null;
  onLink?: (link: LinkId) => void;
  /** Cities to highlight as choosable (goods to take). */
  cities?: Map<CityId, string>;
  selectedCity?: CityId | null;
  onCity?: (city: CityId) => void;
  /** A path to show (the chosen or the completed transcontinental path). */
  path?: LinkId[];
}

function hexagon({ x, y }: Point, r: number): string {
  return Array.from({ length: 6 }, (_, i) => {
    const a = (Math.PI / 3) * i;
    return `${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`;
  }).join(' ');
}

/** Enter and Space choose, as on a button. */
function onActivate(choose: () => void) {
  return (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose();
    }
  };
}

export function MapView({ view, pick = {} }: { view: View; pick?: MapPick }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { cities, links } = view.map;
  // The layout depends on the map only; the map never changes within a game.
  const { at, label, height } = useMemo(() => layoutCities(cities, links), [view.map.id, cities.length, links.length]);
  const pathSet = new Set(pick.path ?? []);
  const built = links.filter((l) => l.company).length;
  return (
    <figure class="sd-map">
      {/* On a phone the map keeps a readable size and scrolls sideways. */}
      <Scrollable class="sd-map-scroll" label={m.map}>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="group"
        aria-label={m.summary(cities.length, built, links.length)}
        data-testid="sd-map"
      >
        <rect x="0" y="0" width={WIDTH} height={height} class="sd-sea" rx="12" />
        {links.map((link) => {
          const a = at.get(link.from)!;
          const b = at.get(link.to)!;
          const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
          const company = link.company ? COMPANY[link.company] : null;
          const choice = pick.links?.get(link.id);
          const selected = pick.selectedLink === link.id;
          const title = `${linkLabel(link.id)}: ${m.cost(link.cost)}${link.company ? `, ${m.builtBy(COMPANY[link.company].name[lang])}` : ''}`;
          const body = (
            <>
              <title>{choice ?? title}</title>
              {pathSet.has(link.id) && <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class="sd-path" />}
              {choice && <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class={selected ? 'sd-halo selected' : 'sd-halo'} />}
              {company ? (
                <>
                  <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class="sd-track-casing" />
                  <line
                    x1={a.x}
                    y1={a.y}
                    x2={b.x}
                    y2={b.y}
                    stroke={company.fill}
                    stroke-width="6"
                    stroke-dasharray={company.dash || undefined}
                  />
                </>
              ) : (
                <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class="sd-link" />
              )}
              {/* The badge: the cost of a free link, the letters of the company that built one. */}
              <circle cx={mid.x} cy={mid.y} r="10" fill={company?.fill ?? 'var(--panel)'} class="sd-badge" />
              <text x={mid.x} y={mid.y} fill={company?.ink ?? 'currentColor'} class="sd-badge-text">
                {company ? company.mark[lang] : link.cost}
              </text>
              {choice && pick.linkNotes?.has(link.id) && (
                <text x={mid.x} y={mid.y - 17} class="sd-link-note">
                  {pick.linkNotes.get(link.id)}
                </text>
              )}
            </>
          );
          if (!choice) return <g key={link.id}>{body}</g>;
          return (
            <g
              key={link.id}
              class="sd-choosable"
              role="button"
              tabindex={0}
              aria-pressed={selected}
              aria-label={choice}
              data-link={link.id}
              onClick={() => pick.onLink?.(link.id)}
              onKeyDown={onActivate(() => pick.onLink?.(link.id))}
            >
              {body}
            </g>
          );
        })}
        {cities.map((city) => {
          const p = at.get(city.id)!;
          const colour = COLOUR[city.colour];
          const choice = pick.cities?.get(city.id);
          const selected = pick.selectedCity === city.id;
          const title = [
            `${city.name} (${city.id})`,
            `${colour.name[lang]} $${city.value}`,
            city.start ? m.start : null,
            city.goods ? m.goodsCube : null,
            city.companies.map((c) => COMPANY[c].name[lang]).join(', ') || null,
          ]
            .filter(Boolean)
            .join(' · ');
          const body = (
            <>
              <title>{choice ?? title}</title>
              {choice && <circle cx={p.x} cy={p.y} r="22" class={selected ? 'sd-halo-city selected' : 'sd-halo-city'} />}
              {city.start ? (
                <polygon points={hexagon(p, 17)} fill={colour.fill} class="sd-city" />
              ) : (
                <circle cx={p.x} cy={p.y} r="14" fill={colour.fill} class="sd-city" />
              )}
              <text x={p.x} y={p.y} fill={colour.ink} class="sd-city-mark">
                {colour.mark[lang]}
              </text>
              <text x={label.get(city.id)!.x} y={label.get(city.id)!.y} text-anchor={label.get(city.id)!.anchor} class="sd-city-label">
                {city.id} ${city.value}
              </text>
              {city.goods && (
                <rect x={p.x + 10} y={p.y - 22} width="11" height="11" fill={colour.fill} class="sd-goods" />
              )}
            </>
          );
          if (!choice) return <g key={city.id}>{body}</g>;
          return (
            <g
              key={city.id}
              class="sd-choosable"
              role="button"
              tabindex={0}
              aria-pressed={selected}
              aria-label={choice}
              data-city={city.id}
              onClick={() => pick.onCity?.(city.id)}
              onKeyDown={onActivate(() => pick.onCity?.(city.id))}
            >
              {body}
            </g>
          );
        })}
      </svg>
      </Scrollable>
      <figcaption class="sd-legend" aria-label={m.legend}>
        {COLOURS.map((c) => (
          <span key={c} class="sd-key">
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <circle cx="12" cy="12" r="10" fill={COLOUR[c].fill} class="sd-city" />
              <text x="12" y="12" fill={COLOUR[c].ink} class="sd-city-mark">
                {COLOUR[c].mark[lang]}
              </text>
            </svg>
            {COLOUR[c].name[lang]}
          </span>
        ))}
        <span class="sd-key">
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <polygon points={hexagon({ x: 12, y: 12 }, 11)} fill="var(--panel)" class="sd-city" />
          </svg>
          {m.startCity}
        </span>
        <span class="sd-key">
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <rect x="6" y="6" width="12" height="12" fill="var(--muted)" class="sd-goods" />
          </svg>
          {m.goodsHere}
        </span>
        {COMPANIES.map((c) => (
          <span key={c} class="sd-key">
            <svg viewBox="0 0 40 12" class="wide" aria-hidden="true">
              <line x1="0" y1="6" x2="40" y2="6" class="sd-track-casing" />
              <line x1="0" y1="6" x2="40" y2="6" stroke={COMPANY[c].fill} stroke-width="6" stroke-dasharray={COMPANY[c].dash || undefined} />
            </svg>
            {/* In Japanese the mark is the name itself. */}
            {COMPANY[c].mark[lang] === COMPANY[c].name[lang] ? companyLabel(c, lang) : `${COMPANY[c].mark[lang]} = ${COMPANY[c].name[lang]}`}
          </span>
        ))}
        {pick.path && pick.path.length > 0 && (
          <span class="sd-key">
            <svg viewBox="0 0 40 12" class="wide" aria-hidden="true">
              <line x1="0" y1="6" x2="40" y2="6" class="sd-path" />
            </svg>
            {m.pathKey}
          </span>
        )}
        {pick.links && pick.links.size > 0 && (
          <span class="sd-key">
            <svg viewBox="0 0 40 12" class="wide" aria-hidden="true">
              <line x1="0" y1="6" x2="40" y2="6" class="sd-halo" />
            </svg>
            {m.legalLink}
          </span>
        )}
      </figcaption>
    </figure>
  );
}
