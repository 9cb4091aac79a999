// A refusal in words. English shows the server's own detail (for rule refusals: the rules'
// message). Japanese shows a translation by the problem's `code` where one exists (the
// platform's here, a game's from its module), else the server's text.
import { ApiError } from './client';
import type { Lang } from '../i18n';

export type CodeMessages = Record<string, Record<Lang, string>>;

const PLATFORM: CodeMessages = {
  version_conflict: {
    en: 'The game moved on while you were choosing.',
    ja: '選んでいる間にゲームが進みました。',
  },
  idempotency_key_expired: {
    en: 'This move was made long ago; the game has moved on since. Reload it.',
    ja: 'この手はずっと前に指されており、ゲームはその後進んでいます。再読み込みしてください。',
  },
  not_a_player: { en: 'You do not sit in this game.', ja: 'このゲームの席に着いていません。' },
  not_the_creator: { en: 'Only the creator of the game may do this.', ja: 'ゲームの作成者だけが行えます。' },
  not_invited: {
    en: 'This game is private and you are not invited.',
    ja: 'このゲームは非公開で、招待されていません。',
  },
  game_not_found: { en: 'There is no such game.', ja: 'そのゲームはありません。' },
  user_not_found: { en: 'There is no user with this name.', ja: 'その名前のユーザーはいません。' },
  token_not_found: { en: 'There is no such API token.', ja: 'そのAPIトークンはありません。' },
  seat_taken: { en: 'Someone already sits in that seat.', ja: 'その席はすでに埋まっています。' },
  game_full: { en: 'Every seat is taken.', ja: '満席です。' },
  already_seated: { en: 'You already sit in this game.', ja: 'すでにこのゲームの席に着いています。' },
  wrong_status: {
    en: 'The game is not in a state that allows this.',
    ja: 'ゲームの状態のため、これは行えません。',
  },
  game_not_active: { en: 'The game has not started yet, or has ended.', ja: 'ゲームは始まっていないか、終了しています。' },
  not_enough_players: { en: 'Too few players to start.', ja: '開始するには人数が足りません。' },
  game_not_finished: { en: 'The game has not ended yet.', ja: 'ゲームはまだ終わっていません。' },
  mail_token_invalid: { en: 'This link is not valid.', ja: 'このリンクは無効です。' },
  mail_token_expired: { en: 'This link has expired; ask for a new one.', ja: 'このリンクは期限切れです。新しいリンクを依頼してください。' },
  mail_token_used: {
    en: 'This link was used already, or a newer one replaced it.',
    ja: 'このリンクは使用済みか、新しいリンクに置き換えられました。',
  },
  wrong_password: { en: 'The password is wrong.', ja: 'パスワードが違います。' },
  email_not_verified: {
    en: 'Verify your email address first (the link in the mail; Settings can send a new one).',
    ja: '先にメールアドレスを確認してください（メールのリンク。設定から再送できます）。',
  },
  email_already_verified: { en: 'Your address is verified already.', ja: 'メールアドレスは確認済みです。' },
  session_not_found: { en: 'There is no such sign-in.', ja: 'そのログインはありません。' },
  calendar_not_found: { en: 'You have no calendar feed.', ja: 'カレンダーのフィードはありません。' },
  invalid_credentials: { en: 'The username or password is wrong.', ja: 'ユーザー名またはパスワードが違います。' },
  username_taken: { en: 'Another account has this username.', ja: 'このユーザー名は使われています。' },
  email_taken: { en: 'Another account has this email address.', ja: 'このメールアドレスは使われています。' },
  invalid_field: { en: 'A field is not acceptable.', ja: '入力内容に受け付けられない項目があります。' },
  invalid_options: { en: 'An option is unknown or out of range.', ja: 'オプションが不明か範囲外です。' },
  invalid_command: { en: 'This game does not understand that action.', ja: 'このゲームでは行えない操作です。' },
  seat_not_abandoned: { en: 'Your seat is not played by the bot.', ja: 'あなたの席はボットが操作していません。' },
  seat_abandoned: {
    en: 'The bot plays your seat after its timeouts; take it back first.',
    ja: '時間切れのためボットがあなたの席を操作しています。先に席に戻ってください。',
  },
  seat_forfeited: { en: 'The seat was forfeited under the time control.', ja: '持ち時間の規定によりこの席は失格です。' },
  already_on_vacation: { en: 'A vacation is running; end it first.', ja: '休暇中です。先に終了してください。' },
  not_on_vacation: { en: 'There is no vacation to end.', ja: '終了する休暇はありません。' },
  rate_limited: { en: 'Too many attempts; try again shortly.', ja: '試行が多すぎます。しばらくしてからお試しください。' },
  overloaded: {
    en: 'The server is busy right now; try again in a moment.',
    ja: 'サーバーが混み合っています。少し待ってからもう一度お試しください。',
  },
  database_unavailable: {
    en: 'The server cannot reach its database right now; try again in a few seconds.',
    ja: 'サーバーがデータベースに接続できません。数秒後にもう一度お試しください。',
  },
  too_many_test_sends: {
    en: 'Your account has used its test sends for this hour (webhooks and push together).',
    ja: 'この1時間のテスト送信（Webhookとプッシュ通知の合計）の上限に達しました。',
  },
  too_many_tournaments: {
    en: 'You organise as many tournaments at once as an organiser may; start, finish or cancel one first.',
    ja: '同時に主催できる大会の数の上限に達しています。どれかを開始・終了・中止してから作成してください。',
  },
  too_many_streams: {
    en: 'Too many live pages are open; close one.',
    ja: 'ライブ表示のページが多すぎます。どれかを閉じてください。',
  },
  insufficient_scope: { en: 'The token lacks the scope for this.', ja: 'トークンに必要な権限がありません。' },
  invalid_note: {
    en: 'A note has at most 10000 characters and no tabs or other control characters.',
    ja: 'メモは10000文字までで、タブなどの制御文字は使えません。',
  },
  precondition_failed: {
    en: 'It was changed elsewhere since this page read it; reload and try again.',
    ja: 'このページで読み込んだ後に別の場所で変更されました。再読み込みしてやり直してください。',
  },
  blocked: { en: 'You cannot invite this player or join this game.', ja: 'この招待または参加はできません。' },
  session_required: { en: 'Only a signed-in user may do this.', ja: 'ログインしたユーザーだけが行えます。' },
  network: { en: 'The server could not be reached.', ja: 'サーバーに接続できませんでした。' },
  rematch_not_finished: { en: 'A rematch is offered once the game has ended.', ja: '再戦はゲームの終了後に申し込めます。' },
  rematch_offer_open: { en: 'Another player\'s rematch offer is open; answer it.', ja: 'ほかのプレイヤーの再戦の申し込みがあります。そちらに回答してください。' },
  rematch_exists: { en: 'This game\'s rematch was played already.', ja: 'このゲームの再戦はすでに行われました。' },
  rematch_not_possible: { en: 'No rematch is possible at this table.', ja: 'このメンバーでは再戦できません。' },
  rematch_offer_not_found: { en: 'There is no such rematch offer.', ja: 'その再戦の申し込みはありません。' },
  rematch_offer_closed: { en: 'The rematch offer has ended; make a new one.', ja: '再戦の申し込みは終了しました。新しく申し込んでください。' },
  rematch_offer_expired: { en: 'The rematch offer expired; make a new one.', ja: '再戦の申し込みは期限切れです。新しく申し込んでください。' },
  undo_disabled: { en: 'Moves cannot be taken back in this game.', ja: 'このゲームでは手を取り消せません。' },
  undo_nothing_to_undo: {
    en: 'You have no move to take back since the last point of no return.',
    ja: '最後の区切り以降、取り消せるあなたの手はありません。',
  },
  undo_barrier: {
    en: 'Something happened since that cannot be taken back (a draw, a reveal, a payment…).',
    ja: 'その後に取り消せないこと（カードを引く、公開、支払いなど）が起きています。',
  },
  undo_stale: {
    en: 'The game moved on while you were asking; look again.',
    ja: '依頼している間にゲームが進みました。もう一度確認してください。',
  },
  undo_needs_consent: {
    en: 'Others have moved since: at this table that cannot be taken back.',
    ja: 'その後ほかの人も動いているため、このテーブルでは取り消せません。',
  },
  undo_request_open: { en: 'Another undo request is open; answer it first.', ja: 'ほかの取り消しの依頼があります。先にそちらに回答してください。' },
  undo_no_request: { en: 'That undo request is over.', ja: 'その取り消しの依頼は終了しています。' },
  undo_not_asked: {
    en: 'You are not asked about this request, or you answered it already.',
    ja: 'この依頼への回答は求められていないか、すでに回答済みです。',
  },
  invalid_undo: { en: 'The game cannot be taken back to that point.', ja: 'その時点には戻せません。' },
  rematch_already_answered: { en: 'You answered this offer already; answers are final.', ja: 'この申し込みには回答済みです。回答は変更できません。' },
};

/** Codes whose words say only what kind of refusal it is: the server's detail (in English)
 * says which field and why, or how long to wait, so Japanese shows it beside them. */
const DETAIL_MATTERS = new Set(['invalid_field', 'invalid_options', 'rate_limited', 'invalid_undo']);
// Refusals whose wait (`Retry-After`) the Japanese words give in minutes (the English detail
// says it already).
const WAIT_MATTERS = new Set(['too_many_test_sends']);

/** The refusal in the viewer's language; `game` adds a game's own rule codes. */
export function errorText(err: unknown, lang: Lang, game?: CodeMessages): string {
  if (err instanceof ApiError) {
    if (lang === 'en') return err.message;
    const words = game?.[err.code]?.ja ?? PLATFORM[err.code]?.ja;
    if (!words) return err.message;
    if (WAIT_MATTERS.has(err.code) && err.retryAfter !== null) return `${words}${Math.max(1, Math.ceil(err.retryAfter / 60))}分後にもう一度お試しください。`;
    return DETAIL_MATTERS.has(err.code) && err.message ? `${words}（${err.message}）` : words;
  }
  if (err instanceof TypeError) return PLATFORM.network![lang];
  return err instanceof Error ? err.message : String(err);
}
