// A player's private note on the game (issue 23): a text area saved on the server, for the
// player's eyes only. It saves by itself, after a pause in typing and when the focus leaves
// it (and on Ctrl+S / ⌘S), each time over the note as this page last read or saved it
// (`If-Match`): when another tab or device saved meanwhile, the server refuses (412) and the
// pane shows both texts and lets the player choose, instead of one tab overwriting the other.
// A save elsewhere shows here at once while nothing is typed here (the game stream says so).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';

/** How long typing must pause before the note is saved. */
const PAUSE_MS = 1200;

const msgs = defineMessages({
  title: { en: 'My notes', ja: 'メモ' },
  label: { en: 'Your private notes on this game', ja: 'このゲームの自分用メモ' },
  hint: {
    en: 'Only you can see these notes. They save by themselves (Ctrl+S saves now).',
    ja: 'このメモはあなただけが見られます。自動で保存されます（Ctrl+S ですぐ保存）。',
  },
  loading: { en: 'Loading…', ja: '読み込み中…' },
  saved: { en: 'Saved', ja: '保存済み' },
  saving: { en: 'Saving…', ja: '保存中…' },
  unsaved: { en: 'Unsaved changes', ja: '未保存の変更があります' },
  failed: { en: 'Not saved', ja: '保存されていません' },
  retry: { en: 'Try again', ja: '再試行' },
  counter: { en: (n: number, max: number) => `${n} / ${max}`, ja: (n: number, max: number) => `${n} / ${max}文字` },
  tooLong: { en: (n: number) => `${n} too many`, ja: (n: number) => `${n}文字超過` },
  conflict: {
    en: 'These notes were changed in another tab or window since this page read them. Which version do you want to keep?',
    ja: 'このページで読み込んだ後に、別のタブまたはウィンドウでメモが変更されました。どちらを残しますか？',
  },
  theirs: { en: 'The other version:', ja: 'もう一方の内容：' },
  empty: { en: '(empty)', ja: '（空）' },
  keepMine: { en: 'Keep mine', ja: 'こちらを残す' },
  takeTheirs: { en: 'Use the other version', ja: 'もう一方を使う' },
});

type Note = Schemas['Note'];
/** The note as the server last gave it, with its tag (what a save must name). */
type Base = { text: string; etag: string };
type Status = 'loading' | 'saved' | 'unsaved' | 'saving' | 'failed' | 'conflict';

/** Characters as the server counts them (code points; line breaks are LF in a text area). */
function charCount(text: string): number {
  return Array.from(text).length;
}

async function readNote(gameId: string): Promise<Base> {
  const answer = await api.GET('/api/v1/games/{game_id}/notes', { params: { path: { game_id: gameId } } });
  const note: Note = await ok(Promise.resolve(answer));
  return { text: note.text, etag: answer.response.headers.get('ETag') ?? '' };
}

export function NotesPane({ gameId, changes }: { gameId: string; changes: number }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [text, setTextState] = useState('');
  const [status, setStatus] = useState<Status>('loading');
  const [error, setError] = useState<unknown>(null);
  const [theirs, setTheirs] = useState<Base | null>(null);
  // Counts the attempts to read the note (a retry after a failed read reads again).
  const [attempt, setAttempt] = useState(0);
  // Saves made by this page (a screen reader is told of each; not of the note's first read).
  const [saves, setSaves] = useState(0);
  // What timers and handlers read: the latest text, the server's note, whether a save runs.
  const textRef = useRef('');
  const base = useRef<Base | null>(null);
  const saving = useRef(false);
  const timer = useRef<number | undefined>(undefined);
  const max = 10000;
  const n = charCount(text);
  const over = n - max;

  const setText = (value: string) => {
    textRef.current = value;
    setTextState(value);
  };

  useEffect(() => {
    let stale = false;
    setStatus('loading');
    readNote(gameId)
      .then((note) => {
        if (stale) return;
        base.current = note;
        setText(note.text);
        setStatus('saved');
      })
      .catch((err: unknown) => {
        if (stale) return;
        setError(err);
        setStatus('failed');
      });
    return () => {
      stale = true;
      window.clearTimeout(timer.current);
    };
  }, [gameId, attempt]);

  /** Saves the text over `over` (default: the note as last read or saved). */
  const save = useCallback(
    async (overNote?: Base) => {
      window.clearTimeout(timer.current);
      const from = overNote ?? base.current;
      const sent = textRef.current;
      if (!from || saving.current || charCount(sent) > max) return;
      if (!overNote && sent === from.text) {
        setStatus((s) => (s === 'conflict' ? s : 'saved'));
        return;
      }
      saving.current = true;
      setStatus('saving');
      setError(null);
      try {
        const answer = await api.PUT('/api/v1/games/{game_id}/notes', {
          params: { path: { game_id: gameId }, header: { 'If-Match': from.etag } },
          body: { text: sent },
        });
        const note: Note = await ok(Promise.resolve(answer));
        base.current = { text: note.text, etag: answer.response.headers.get('ETag') ?? '' };
        setTheirs(null);
        setSaves((n) => n + 1);
        // Typed on while it was saved: that is saved next.
        if (textRef.current === sent) setStatus('saved');
        else {
          setStatus('unsaved');
          timer.current = window.setTimeout(() => void save(), PAUSE_MS);
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 412) {
          try {
            setTheirs(await readNote(gameId));
            setStatus('conflict');
          } catch (again) {
            setError(again);
            setStatus('failed');
          }
        } else {
          setError(err);
          setStatus('failed');
        }
      } finally {
        saving.current = false;
      }
    },
    [gameId],
  );

  const onInput = (value: string) => {
    setText(value);
    if (status === 'conflict') return;
    setStatus('unsaved');
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => void save(), PAUSE_MS);
  };
  const keepMine = () => {
    if (theirs) void save(theirs);
  };
  const retry = () => {
    if (base.current) void save();
    else setAttempt((a) => a + 1);
  };
  const takeTheirs = () => {
    if (!theirs) return;
    base.current = theirs;
    setText(theirs.text);
    setTheirs(null);
    setStatus('saved');
  };
  // Saved elsewhere (the game stream's `note` events, counted in `changes`; this page's own
  // saves too): with nothing typed here since, the pane takes the saved note at once; with
  // unsaved typing, the next save meets the change and offers the choice.
  const statusRef = useRef<Status>('loading');
  statusRef.current = status;
  useEffect(() => {
    if (changes === 0) return;
    let stale = false;
    readNote(gameId)
      .then((note) => {
        const untouched = base.current !== null && textRef.current === base.current.text;
        if (stale || saving.current || statusRef.current !== 'saved' || !untouched) return;
        if (note.etag === base.current?.etag) return;
        base.current = note;
        setText(note.text);
      })
      .catch(() => {
        // The next save reads it again.
      });
    return () => {
      stale = true;
    };
  }, [gameId, changes]);

  // The tab going to the background, or leaving the game's page, saves what is typed.
  useEffect(() => {
    const unsaved = () => base.current !== null && textRef.current !== base.current.text;
    const flush = () => {
      if (document.visibilityState === 'hidden' && unsaved()) void save();
    };
    document.addEventListener('visibilitychange', flush);
    return () => {
      document.removeEventListener('visibilitychange', flush);
      if (unsaved()) void save();
    };
  }, [save]);

  const statusText =
    status === 'loading' ? m.loading : status === 'saving' ? m.saving : status === 'unsaved' ? m.unsaved : status === 'failed' ? m.failed : status === 'conflict' ? m.unsaved : m.saved;
  return (
    <section class="notes" aria-labelledby="notes-title" data-testid="notes">
      <h2 id="notes-title">{m.title}</h2>
      <label for="notes-input" class="visually-hidden">
        {m.label}
      </label>
      <textarea
        id="notes-input"
        rows={6}
        value={text}
        disabled={status === 'loading'}
        onInput={(e) => onInput(e.currentTarget.value)}
        onBlur={() => status !== 'conflict' && void save()}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
            e.preventDefault();
            if (status !== 'conflict') void save();
          }
        }}
        aria-describedby="notes-hint notes-count notes-status"
        aria-invalid={over > 0}
        data-testid="notes-input"
      />
      <div class="notes-foot">
        <small id="notes-hint" class="hint">
          {m.hint}
        </small>
        <small id="notes-count" class={over > 0 ? 'error' : 'hint'}>
          {m.counter(n, max)}
          {over > 0 ? ` ${m.tooLong(over)}` : ''}
        </small>
        <small id="notes-status" data-testid="notes-status" data-status={status}>
          {statusText}
        </small>
      </div>
      {/* Said once per save (not at every keystroke's "unsaved"); failures are alerts below. */}
      <p class="visually-hidden" aria-live="polite">
        {status === 'saved' && saves > 0 ? m.saved : ''}
      </p>
      {status === 'failed' && error !== null && (
        <p class="error" role="alert" data-testid="notes-error">
          {errorText(error, lang)}{' '}
          <button type="button" class="link-button" onClick={retry}>
            {m.retry}
          </button>
        </p>
      )}
      {status === 'conflict' && theirs && (
        <div class="notes-conflict" role="alert" data-testid="notes-conflict">
          <p>{m.conflict}</p>
          <p class="muted">{m.theirs}</p>
          <pre class="notes-theirs" data-testid="notes-theirs">
            {theirs.text === '' ? m.empty : theirs.text}
          </pre>
          <div class="notes-choices">
            <button type="button" onClick={keepMine} data-testid="notes-keep-mine">
              {m.keepMine}
            </button>
            <button type="button" class="secondary" onClick={takeTheirs} data-testid="notes-take-theirs">
              {m.takeTheirs}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
