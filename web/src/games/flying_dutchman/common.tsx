// What the parts of The Flying Dutchman's page share: the API types, the six colours (each
// always shown with a letter too, never by colour alone), names of spaces, and the two
// hidden things a player holds, share cards and horseshoes.
//
// Every share card and horseshoe the page shows goes through `ShareCard` / `Horseshoe`
// below, which mark it with `data-share` / `data-horseshoe`; a hand (what a seat holds) is
// wrapped in an element with `data-hand-of="<seat>"`. The browser test relies on this to
// check that no page ever shows another seat's hidden hand.
import type { Schemas } from '../../api/client';
import { count, defineMessages, type Lang } from '../../i18n';

export type View = Schemas['FlyingDutchman.View'];
export type Legal = Schemas['FlyingDutchman.Legal'];
export type Command = Schemas['FlyingDutchman.Command'];
// The game's own options: who may watch, the chat, undo and rated are the table's, which the
// new-game page asks for.
export type Options = Omit<Schemas['FlyingDutchman.Options'], 'spectators' | 'chat' | 'undo' | 'rated'>;
export type FdEvent = Schemas['FlyingDutchman.Event'];
export type Colour = Schemas['FlyingDutchman.Colour'];
export type Space = Schemas['FlyingDutchman.Space'];
export type BoardData = Schemas['FlyingDutchman.Board'];
export type BidHorseshoe = Schemas['FlyingDutchman.BidHorseshoe'];
export type Offer = Schemas['FlyingDutchman.Offer'];
export type PlayerView = Schemas['FlyingDutchman.PlayerView'];
export type Step = Schemas['FlyingDutchman.Step'];
export type MoveReason = Schemas['FlyingDutchman.MoveReason'];
export type EndReason = Schemas['FlyingDutchman.EndReason'];

interface ColourInfo {
  /** Fill on the board and on cards. */
  fill: string;
  /** Text drawn on that fill (dark on light colours). */
  ink: string;
  name: Record<Lang, string>;
  /** One letter (or one kanji) shown on every ship, marker and card of the colour. */
  letter: Record<Lang, string>;
}

export const COLOURS: Record<Colour, ColourInfo> = {
  blue: { fill: '#2f6fd1', ink: '#ffffff', name: { en: 'blue', ja: '青' }, letter: { en: 'B', ja: '青' } },
  yellow: { fill: '#f2c72e', ink: '#1d1d1b', name: { en: 'yellow', ja: '黄' }, letter: { en: 'Y', ja: '黄' } },
  green: { fill: '#2e7d32', ink: '#ffffff', name: { en: 'green', ja: '緑' }, letter: { en: 'G', ja: '緑' } },
  orange: { fill: '#ee8425', ink: '#1d1d1b', name: { en: 'orange', ja: '橙' }, letter: { en: 'O', ja: '橙' } },
  red: { fill: '#cf3131', ink: '#ffffff', name: { en: 'red', ja: '赤' }, letter: { en: 'R', ja: '赤' } },
  violet: { fill: '#8b4fc2', ink: '#ffffff', name: { en: 'violet', ja: '紫' }, letter: { en: 'V', ja: '紫' } },
};

export const COLOUR_ORDER: Colour[] = ['blue', 'yellow', 'green', 'orange', 'red', 'violet'];

/** Gold horseshoes are the faces 21–48; silver ones are 1, 2, 10 and 20. */
export function isGold(face: number): boolean {
  return face >= 21;
}

export function signed(h: BidHorseshoe): number {
  return h.sign === 'minus' ? -h.value : h.value;
}

export function bidValue(horseshoes: BidHorseshoe[]): number {
  return horseshoes.reduce((sum, h) => sum + signed(h), 0);
}

/** A space's name in words, from the board data (islands other than Holland by their id). */
export function spaceName(board: BoardData, id: string, lang: Lang): string {
  const space = board.spaces.find((s) => s.id === id);
  if (!space) return id;
  if (space.kind === 'ship' && space.colour) {
    const sameColour = board.spaces.filter((s) => s.kind === 'ship' && s.colour === space.colour);
    const number = sameColour.findIndex((s) => s.id === id) + 1;
    const colour = COLOURS[space.colour].name[lang];
    return lang === 'ja' ? `${colour}の船${number}` : `${capitalise(colour)} ship ${number}`;
  }
  if (id === board.start) return lang === 'ja' ? 'オランダ' : 'Holland';
  const islands = board.spaces.filter((s) => s.kind === 'island' && s.id !== board.start);
  const number = islands.findIndex((s) => s.id === id) + 1;
  return lang === 'ja' ? `島${number}` : `Island ${number}`;
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const common = defineMessages({
  gold: { en: 'gold', ja: '金' },
  silver: { en: 'silver', ja: '銀' },
  ducats: { en: (n: number) => count(n, 'ducat'), ja: (n: number) => `${n}ドゥカート` },
  shareCard: { en: (c: string) => `${c} share`, ja: (c: string) => `${c}の株` },
  horseshoe: {
    en: (metal: string, face: string) => `${metal} horseshoe ${face}`,
    ja: (metal: string, face: string) => `${metal}の蹄鉄 ${face}`,
  },
});

/** A share card: colour, letter and name. */
export function ShareCard({ colour, lang, note }: { colour: Colour; lang: Lang; note?: string }) {
  const info = COLOURS[colour];
  return (
    <span class={`fd-card fd-${colour}`} data-share={colour} title={common.shareCard[lang](info.name[lang])}>
      <b aria-hidden="true">{info.letter[lang]}</b>
      <span class="visually-hidden">{common.shareCard[lang](info.name[lang])}</span>
      {note && <small>{note}</small>}
    </span>
  );
}

/** A horseshoe: its face, its metal (also as a letter), and a sign when bid. */
export function Horseshoe({ face, sign, lang }: { face: number; sign?: 'plus' | 'minus'; lang: Lang }) {
  const gold = isGold(face);
  const metal = gold ? common.gold[lang] : common.silver[lang];
  const shown = sign === 'minus' ? `−${face}` : sign === 'plus' ? `+${face}` : `${face}`;
  return (
    <span class={`fd-shoe ${gold ? 'fd-gold' : 'fd-silver'}`} data-horseshoe={face} title={common.horseshoe[lang](metal, shown)}>
      <span aria-hidden="true">
        {shown}
        <small>{gold ? (lang === 'ja' ? '金' : 'G') : lang === 'ja' ? '銀' : 'S'}</small>
      </span>
      <span class="visually-hidden">{common.horseshoe[lang](metal, shown)}</span>
    </span>
  );
}
