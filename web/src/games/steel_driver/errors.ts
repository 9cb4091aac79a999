// The rules' refusals in both languages, by the server's `code`, for the game page (which
// shows the server's own detail in English and these in Japanese). The English texts are
// the server's, from ERROR_CODES in src/games/steel_driver/decide.rs.
import type { Lang } from '../../i18n';

export const RULE_ERRORS: Record<string, Record<Lang, string>> = {
  not_your_turn: { en: 'Another seat (or nobody) must act now.', ja: '今はほかの席の手番です（または誰の手番でもありません）。' },
  wrong_step: { en: 'This command does not fit the current step of the game.', ja: 'この操作は今のゲームの段階に合いません。' },
  no_opening_bid: { en: 'An auction must be opened with a bid of at least 1 cube.', ja: '競りは1キューブ以上の入札で始めなければなりません。' },
  not_enough_cubes: { en: 'The bid is more cubes than the player holds.', ja: '持っているキューブより多くは入札できません。' },
  bid_too_low: { en: 'A bid must be strictly higher than the current bid.', ja: '入札は現在の入札より多くなければなりません。' },
  company_not_available: { en: "That company's control marker is not in its box.", ja: 'その会社の支配マーカーは箱にありません。' },
  link_taken: { en: 'A company has already built that link.', ja: 'その区間はすでに別の会社が建設しています。' },
  no_track_left: { en: 'The company has used all 17 of its track pieces.', ja: 'この会社は17本の線路をすべて使いました。' },
  not_from_start_city: { en: "A company's first link must start from a start city.", ja: '会社の最初の区間は始発都市から始めなければなりません。' },
  not_connected: { en: "The link must touch a city on the company's network.", ja: '区間は会社の路線網の都市に接していなければなりません。' },
  cost_exceeds_box: { en: "The company's box holds fewer cubes than the link costs.", ja: '会社の箱のキューブが区間の費用より少ないです。' },
  must_build: { en: 'The company can build a link, so it may not pass.', ja: 'この会社は建設できるので、パスできません。' },
  no_such_path: { en: 'There is no transcontinental path with that index.', ja: 'その番号の大陸横断ルートはありません。' },
  city_not_on_network: { en: "The city is not on the company's network.", ja: 'その都市は会社の路線網にありません。' },
  no_goods_there: { en: 'That city holds no goods cube.', ja: 'その都市に商品キューブはありません。' },
  must_take_goods: { en: 'The company can take a goods cube, so it may not pass.', ja: 'この会社は商品を取れるので、パスできません。' },
};
