// The rules' refusals in both languages, by the server's `code` (the codes listed by the
// engine's ERROR_CODES in decide.rs). The game page shows them (`errorMessages` of the
// module); a code left out shows the server's own text.
import type { CodeMessages } from '../../api/errors';

export const ruleErrors: CodeMessages = {
  game_not_started: { en: 'The game has not been set up yet.', ja: 'ゲームはまだ準備されていません。' },
  game_over: { en: 'The game has ended; no more moves.', ja: 'ゲームは終了しました。もう手は打てません。' },
  unknown_seat: { en: 'There is no such seat at this table.', ja: 'その席はこの卓にありません。' },
  not_your_turn: { en: 'You may not act now.', ja: '今は行動できません。' },
  wrong_step: { en: 'That does not fit the current step of the round.', ja: 'その操作は今のラウンドの段階に合いません。' },
  too_many_horseshoes_to_pass: {
    en: 'Passing is allowed only with 4 or fewer horseshoes.',
    ja: 'パスできるのは蹄鉄が4個以下のときだけです。',
  },
  no_kontor_card: { en: 'A Kontor exchange needs a Kontor card.', ja: '商館での交換には商館カードが必要です。' },
  no_smith_card: { en: 'The smith needs a smith card.', ja: '鍛冶屋には鍛冶屋カードが必要です。' },
  share_stack_too_small: { en: 'The share stack has fewer than two cards.', ja: '株の山札が2枚未満です。' },
  must_return_two: { en: 'A Kontor exchange puts back exactly two share cards.', ja: '商館での交換では株券をちょうど2枚戻します。' },
  unknown_share_card: { en: 'You do not hold that share card.', ja: 'その株券を持っていません。' },
  empty_bid: { en: 'A bid needs at least one horseshoe.', ja: '入札には蹄鉄が1個以上必要です。' },
  two_gold_horseshoes: { en: 'A bid may contain at most one gold horseshoe.', ja: '入札に使える金の蹄鉄は1個までです。' },
  negative_gold: { en: 'A gold horseshoe always counts plus.', ja: '金の蹄鉄は常にプラスです。' },
  unknown_horseshoe: { en: 'You do not hold that horseshoe (or not that many).', ja: 'その蹄鉄を（その数だけ）持っていません。' },
  unknown_space: { en: 'There is no such space on the board.', ja: 'その場所は盤上にありません。' },
  not_adjacent: { en: 'The ghost ship moves along one line: that space is not next to it.', ja: '幽霊船は線1本分だけ進みます。その場所は隣ではありません。' },
  backtrack_not_allowed: { en: 'The ghost ship may not go back where it just came from.', ja: '幽霊船は直前にいた場所へ戻れません。' },
  payee_not_in_tie: { en: 'An offer may pay only other players of the tie.', ja: '提案で支払えるのは同点の他のプレイヤーだけです。' },
  payment_to_self: { en: 'An offer cannot pay its own maker.', ja: '提案者自身には支払えません。' },
  duplicate_payee: { en: 'An offer names each payee once.', ja: '受取人は1回ずつしか指定できません。' },
  invalid_amount: { en: 'A payment must be at least one ducat.', ja: '支払いは1ドゥカート以上です。' },
  offer_exceeds_coins: {
    en: 'Nobody may promise more than they hold (over all their offers for that destination).',
    ja: '持っている以上の額は約束できません（その行き先への提案の合計）。',
  },
  too_many_offers: { en: 'At most 5 standing offers each; withdraw one first.', ja: '出せる提案は5件までです。先に1件取り下げてください。' },
  unknown_offer: { en: 'There is no standing offer with that number.', ja: 'その番号の提案はありません。' },
  own_offer: { en: 'You already accept your own offer.', ja: '自分の提案はすでに受け入れています。' },
  not_your_offer: { en: 'Only its maker may withdraw an offer.', ja: '提案を取り下げられるのは提案者だけです。' },
  already_accepted: { en: 'You have already accepted that offer.', ja: 'その提案はすでに受け入れています。' },
  already_rejected: { en: 'You have already rejected that offer.', ja: 'その提案はすでに拒否しています。' },
};
