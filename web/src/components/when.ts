// Dates and times as the reader set them: in the page's language and, once signed in, in the
// time zone of their profile (the one their mails use), named so that nobody has to guess.
// Signed out, or where this browser does not know the zone, the browser's own zone is used.
import { useMemo } from 'preact/hooks';
import { useLang } from '../i18n';
import { useSession } from '../session';

const FIELDS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

function formatter(lang: string, timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(lang, { ...FIELDS, timeZone });
  } catch {
    // A zone this browser's Intl does not know (RangeError).
    return new Intl.DateTimeFormat(lang, FIELDS);
  }
}

/** `when(at)`: a date (or an RFC 3339 string) as the signed-in reader wants to read it. */
export function useWhen(): (at: Date | string) => string {
  const { lang } = useLang();
  const { user } = useSession();
  const zone = user?.time_zone;
  return useMemo(() => {
    const format = formatter(lang, zone);
    return (at: Date | string) => format.format(typeof at === 'string' ? new Date(at) : at);
  }, [lang, zone]);
}
