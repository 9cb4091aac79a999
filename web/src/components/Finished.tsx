// After the end: the result (the game module's own `Outcome`, else ranks and scores), the
// revealed seed against its commitment, the server's verification of every random draw,
// and the export of the log.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { count, defineMessages, useLang, useMessages } from '../i18n';
import type { GameDetail, GameModule } from '../games/types';

const msgs = defineMessages({
  result: { en: 'Result', ja: '結果' },
  rank: { en: 'Rank', ja: '順位' },
  player: { en: 'Player', ja: 'プレイヤー' },
  score: { en: 'Score', ja: '得点' },
  out: { en: 'out', ja: '脱落' },
  winner: { en: 'winner', ja: '勝者' },
  fairness: { en: 'Fairness', ja: '公正さの検証' },
  commitment: { en: 'Seed commitment (published at the start)', ja: 'シードのコミットメント（開始時に公開）' },
  seed: { en: 'Seed (revealed at the end)', ja: 'シード（終了時に公開）' },
  checking: { en: 'Verifying…', ja: '検証中…' },
  verified: {
    en: (e: number, c: number) => `Verified: all ${count(e, 'event')} and ${count(c, 'command')} follow from the seed and the seat nonces.`,
    ja: (e: number, c: number) => `検証済み：${e}件のイベントと${c}件のコマンドはすべてシードと各席のノンスから導かれます。`,
  },
  failed: {
    en: (why: string, seq: string) => `Not verified: ${why}${seq}.`,
    ja: (why: string, seq: string) => `検証失敗：${why}${seq}。`,
  },
  atEvent: { en: (n: number) => ` (event ${n})`, ja: (n: number) => `（イベント${n}）` },
  export: { en: 'Download the log (ndjson)', ja: 'ログをダウンロード（ndjson）' },
});

function Ranks({ detail, seatName }: { detail: GameDetail; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const outcome = detail.outcome as Schemas['Outcome'] | null | undefined;
  if (!outcome) return null;
  const order = outcome.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank);
  return (
    <table class="ranks">
      <thead>
        <tr>
          <th scope="col">{m.rank}</th>
          <th scope="col">{m.player}</th>
          <th scope="col">{m.score}</th>
        </tr>
      </thead>
      <tbody>
        {order.map(({ rank, seat }) => (
          <tr key={seat}>
            <td>
              {rank}
              {outcome.winners.includes(seat) ? ` (${m.winner})` : ''}
            </td>
            <td>{seatName(seat)}</td>
            <td>{outcome.scores[seat] ?? m.out}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ExportButton({ id }: { id: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [error, setError] = useState<string | null>(null);
  // The export needs the access token, which a plain link cannot carry: fetch it, then
  // hand the browser the file.
  const download = async () => {
    setError(null);
    try {
      const text = await ok(
        api.GET('/api/v1/games/{game_id}/export', { params: { path: { game_id: id } }, parseAs: 'text' }),
      );
      const url = URL.createObjectURL(new Blob([text as string], { type: 'application/x-ndjson' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `kontor-${id}.ndjson`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(errorText(err, lang));
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={() => void download()}>
        {m.export}
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

export function Finished(props: {
  detail: GameDetail;
  module: GameModule<never, never, never, never, never> | undefined;
  seatName: (s: number) => string;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { detail, module, seatName } = props;
  const [verification, setVerification] = useState<Schemas['Verification'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void ok(api.GET('/api/v1/games/{game_id}/verification', { params: { path: { game_id: detail.id } } }))
      .then(setVerification)
      .catch((err) => setError(errorText(err, lang)));
  }, [detail.id, lang]);
  const Outcome = module?.Outcome;
  return (
    <section class="finished" aria-labelledby="result-title">
      <h2 id="result-title">{m.result}</h2>
      {Outcome ? <Outcome detail={detail} seatName={seatName} /> : <Ranks detail={detail} seatName={seatName} />}
      <h3>{m.fairness}</h3>
      <dl class="seed">
        <dt>{m.commitment}</dt>
        <dd>
          <code>{detail.seed_commitment}</code>
        </dd>
        <dt>{m.seed}</dt>
        <dd>
          <code data-testid="seed">{detail.seed}</code>
        </dd>
      </dl>
      <p
        data-testid="verification"
        data-verified={verification ? String(verification.verified) : undefined}
        class={verification ? (verification.verified ? 'ok' : 'error') : undefined}
        aria-live="polite"
      >
        {error ??
          (verification === null
            ? m.checking
            : verification.verified
              ? `✔ ${m.verified(verification.events_checked, verification.commands_checked)}`
              : `✘ ${m.failed(
                  verification.failure?.reason ?? '',
                  verification.failure?.seq != null ? m.atEvent(verification.failure.seq) : '',
                )}`)}
      </p>
      <ExportButton id={detail.id} />
    </section>
  );
}
