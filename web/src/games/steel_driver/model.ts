// Steel Driver's wire types (aliases of the generated API schemas, never copies) and the
// names, letters and colours the page shows for companies and goods.
import type { Schemas } from '../../api/client';
import type { Lang } from '../../i18n';

export type View = Schemas['SteelDriver.View'];
export type Legal = Schemas['SteelDriver.Legal'];
export type Command = Schemas['SteelDriver.Command'];
export type Options = Schemas['SteelDriver.Options'];
export type Event = Schemas['SteelDriver.Event'];
export type Company = Schemas['SteelDriver.Company'];
export type Colour = Schemas['SteelDriver.Colour'];
export type CityId = Schemas['SteelDriver.City'];
export type LinkId = Schemas['SteelDriver.Link'];
export type Phase = Schemas['SteelDriver.Phase'];
export type City = Schemas['SteelDriver.CityView'];
export type Link = Schemas['SteelDriver.LinkView'];
export type CompanyView = Schemas['SteelDriver.CompanyView'];
export type PlayerView = Schemas['SteelDriver.PlayerView'];
export type BuildOption = Schemas['SteelDriver.BuildOption'];
export type TranscontinentalPath = Schemas['SteelDriver.TranscontinentalPath'];

/** One step of `legal`, by its tag. */
export type LegalStep<S extends Legal['step']> = Extract<Legal, { step: S }>;

/** The order of the goods counts in the view (`goods: [pink, orange, green, white, black]`). */
export const COLOURS: Colour[] = ['pink', 'orange', 'green', 'white', 'black'];

/** Box order. */
export const COMPANIES: Company[] = ['red', 'yellow', 'green', 'blue', 'grey', 'brown'];

interface Named {
  name: Record<Lang, string>;
  /** A short mark that tells the colour without seeing it (on the map, in the boxes). */
  mark: Record<Lang, string>;
}

export const COMPANY: Record<Company, Named & { fill: string; ink: string; dash: string }> = {
  // `dash` gives each company's track its own pattern as well as its colour.
  red: { name: { en: 'Red', ja: '赤' }, mark: { en: 'Rd', ja: '赤' }, fill: '#c62828', ink: '#fff', dash: '' },
  yellow: { name: { en: 'Yellow', ja: '黄' }, mark: { en: 'Ye', ja: '黄' }, fill: '#f9c80e', ink: '#1d1d1b', dash: '10 3' },
  green: { name: { en: 'Green', ja: '緑' }, mark: { en: 'Gn', ja: '緑' }, fill: '#2e7d32', ink: '#fff', dash: '3 3' },
  blue: { name: { en: 'Blue', ja: '青' }, mark: { en: 'Bl', ja: '青' }, fill: '#1565c0', ink: '#fff', dash: '12 3 3 3' },
  grey: { name: { en: 'Grey', ja: '灰' }, mark: { en: 'Gy', ja: '灰' }, fill: '#757575', ink: '#fff', dash: '6 2' },
  brown: { name: { en: 'Brown', ja: '茶' }, mark: { en: 'Br', ja: '茶' }, fill: '#6d4c41', ink: '#fff', dash: '2 2 8 2' },
};

export const COLOUR: Record<Colour, Named & { fill: string; ink: string }> = {
  pink: { name: { en: 'pink', ja: 'ピンク' }, mark: { en: 'Pk', ja: '桃' }, fill: '#f48fb1', ink: '#1d1d1b' },
  orange: { name: { en: 'orange', ja: 'オレンジ' }, mark: { en: 'Or', ja: '橙' }, fill: '#fb8c00', ink: '#1d1d1b' },
  green: { name: { en: 'green', ja: '緑' }, mark: { en: 'Gn', ja: '緑' }, fill: '#66bb6a', ink: '#1d1d1b' },
  white: { name: { en: 'white', ja: '白' }, mark: { en: 'Wh', ja: '白' }, fill: '#ffffff', ink: '#1d1d1b' },
  black: { name: { en: 'black', ja: '黒' }, mark: { en: 'Bk', ja: '黒' }, fill: '#212121', ink: '#fff' },
};

/** A company's name as a label: "Red (Rd)" / "赤". */
export function companyLabel(company: Company, lang: Lang): string {
  const c = COMPANY[company];
  return lang === 'ja' ? `${c.name.ja}社` : c.name.en;
}

/** Goods sets as the rules score them: set k holds every colour held at least k times. */
export function goodsSets(goods: readonly number[]): number[] {
  const most = Math.max(0, ...goods);
  const sets: number[] = [];
  for (let k = 1; k <= most; k++) sets.push(goods.filter((g) => g >= k).length);
  return sets;
}

/** The value of a set of n colours (rules §4.5). */
export const SET_VALUES = [0, 10, 30, 50, 100, 150];

/** Investment cubes each player receives per round, by the number of players (rules §3.1). */
export function cubesPerRound(seats: number): number {
  return seats <= 3 ? 10 : seats === 4 ? 8 : seats === 5 ? 7 : 6;
}

/** A link id ("SEA-POR") as text. */
export function linkLabel(link: LinkId): string {
  return link.replace('-', '–');
}
