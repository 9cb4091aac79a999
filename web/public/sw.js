// Kontor's service worker: shows push notifications, opens the game a notification is about,
// and keeps the page's shell (index.html and the built files) for when the server cannot be
// reached. It never answers an API request: those always go to the server, so one account's
// answers are never kept on the device, nor shown to whoever signs in next.
//
// Plain JavaScript (a worker has no DOM; the page's TypeScript program has), linted with the
// page (eslint.config.js). The build fills in BUILD (vite.config.ts, "stamp the service
// worker"): a new build is a new version, and a new version drops the old one's cache.
'use strict';

const BUILD = { version: 'dev', files: [] };
const CACHE = `kontor-shell-${BUILD.version}`;
const SHELL = '/';
const STATIC = ['/manifest.webmanifest', '/icons/icon.svg', '/icons/icon-192.png'];

/** Paths the worker leaves to the network untouched: the API, the docs, the probes. */
function passesBy(url) {
  return (
    url.origin !== self.location.origin ||
    url.pathname.startsWith('/api/') ||
    url.pathname === '/docs' ||
    url.pathname.startsWith('/docs/') ||
    url.pathname === '/healthz' ||
    url.pathname === '/readyz' ||
    url.pathname === '/metrics'
  );
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([SHELL, ...STATIC, ...BUILD.files.map((file) => `/${file}`)]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('kontor-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** The page itself, from the server while it answers; the kept shell when it does not. */
async function navigate(request) {
  try {
    const response = await fetch(request);
    // A proxy in front of a stopped server answers for it.
    if (response.status < 502 || response.status > 504) return response;
    return (await caches.match(SHELL)) ?? response;
  } catch (error) {
    const shell = await caches.match(SHELL);
    if (shell) return shell;
    throw error;
  }
}

/** A built file: kept ones from the cache; `/assets/` names change with their content, so a
 * fetched one is kept too. Nothing else is ever stored. */
async function file(request, url) {
  const kept = await caches.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && url.pathname.startsWith('/assets/')) {
    const copy = response.clone();
    await caches.open(CACHE).then((cache) => cache.put(request, copy));
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (passesBy(url)) return;
  if (request.mode === 'navigate') event.respondWith(navigate(request));
  else event.respondWith(file(request, url));
});

/** A link of ours only: a payload cannot send the player elsewhere. */
function ownLink(link) {
  try {
    const url = new URL(link, self.location.origin);
    return url.origin === self.location.origin ? url.href : self.location.origin + '/';
  } catch {
    return self.location.origin + '/';
  }
}

/** What a push says: the server's JSON ({kind, title, body, url, game_id, tag}), or, for
 * anything else, its text under the site's name. */
function readPush(data) {
  const japanese = (self.navigator.language || '').toLowerCase().startsWith('ja');
  const fallback = japanese ? 'ゲームで動きがありました。' : 'Something happened in one of your games.';
  let text = '';
  try {
    text = data ? data.text() : '';
    const message = JSON.parse(text);
    if (message && typeof message === 'object' && typeof message.title === 'string') {
      return {
        title: message.title,
        body: typeof message.body === 'string' ? message.body : '',
        tag: typeof message.tag === 'string' ? message.tag : undefined,
        url: ownLink(typeof message.url === 'string' ? message.url : '/'),
      };
    }
  } catch {
    // not JSON: shown as text below
  }
  return { title: 'Kontor', body: text.trim().slice(0, 200) || fallback, tag: undefined, url: ownLink('/') };
}

self.addEventListener('push', (event) => {
  const { title, body, tag, url } = readPush(event.data);
  event.waitUntil(self.registration.showNotification(title, { body, tag, data: { url }, icon: '/icons/icon-192.png' }));
});

/** Focuses a window already on the notification's page, or opens one. */
async function openLink(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.url === url);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = ownLink(event.notification.data && event.notification.data.url);
  event.waitUntil(openLink(url));
});
