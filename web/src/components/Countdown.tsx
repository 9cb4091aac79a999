// The time left until a deadline, ticking. Not a live region: a ticking clock read aloud
// every second would drown everything else.
import { useEffect, useState } from 'preact/hooks';
import { defineMessages, useLang, useMessages } from '../i18n';
import { formatSpan } from './time';
import { useWhen } from './when';

const msgs = defineMessages({
  left: { en: (t: string) => `${t} left`, ja: (t: string) => `残り${t}` },
  overdue: { en: 'time is up', ja: '時間切れ' },
});

export function Countdown({ deadline }: { deadline: Date }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = deadline.getTime() - now;
  return (
    <time class="countdown" dateTime={deadline.toISOString()} title={when(deadline)} data-testid="countdown">
      {left > 0 ? m.left(formatSpan(left, lang)) : m.overdue}
    </time>
  );
}
