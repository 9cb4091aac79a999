// A message's text as plain text: never parsed as HTML. Web addresses (http and https only)
// become links that open in a new tab without handing the page to the target
// (`rel="noopener noreferrer nofollow"`); anything else stays text.
import type { ComponentChildren } from 'preact';

const ADDRESS = /\bhttps?:\/\/[^\s<>"]+/gi;
// Punctuation that ends a sentence rather than an address.
const TRAILING = /[.,;:!?)\]}'、。）」]+$/;

export function safeLink(candidate: string): string | null {
  try {
    const url = new URL(candidate);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export function MessageText({ text }: { text: string }) {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(ADDRESS)) {
    const start = match.index;
    const raw = match[0].replace(TRAILING, '');
    const href = safeLink(raw);
    if (!href || raw.length === 0) continue;
    if (start > last) parts.push(text.slice(last, start));
    parts.push(
      <a key={start} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {raw}
      </a>,
    );
    last = start + raw.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
