// Web Push on this device: the browser's push subscription (made with the server's VAPID key
// through the service worker, public/sw.js) and the account's list of subscribed devices on
// the server. A device's subscription belongs to the account signed in when it was made; signing
// out on the device removes it, so the next account never gets the last one's notices.
import { api, ok, type Schemas } from './client';

/** A device subscribed to the account's push notices. */
export type PushDevice = Schemas['PushSubscriptionView'];

/** What the push service answered a test push: its HTTP status, or why there was none. */
export type TestResult = Schemas['PushTestResult'];

/** Why this browser cannot get push notifications, or null if it can. */
export function unsupported(): 'no_push' | 'denied' | null {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'no_push';
  return Notification.permission === 'denied' ? 'denied' : null;
}

async function registration(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined;
  return navigator.serviceWorker.getRegistration('/');
}

/** This browser's push subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  return (await registration())?.pushManager.getSubscription() ?? null;
}

export const listDevices = () => ok(api.GET('/api/v1/me/push-subscriptions'));

export const removeDevice = (id: string) => ok(api.DELETE('/api/v1/me/push-subscriptions/{id}', { params: { path: { id } } }));

export const testDevice = (id: string) => ok(api.POST('/api/v1/me/push-subscriptions/{id}/test', { params: { path: { id } } }));

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function sameKey(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const bytes = new Uint8Array(a);
  return bytes.every((v, i) => v === b[i]);
}

/** A short name for a device, from its User-Agent: its browser and system. */
export function deviceName(ua: string): string {
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const system = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Windows/.test(ua) ? 'Windows' : /Mac OS/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : '';
  return system ? `${browser} · ${system}` : browser;
}

/** How long the browser's push service may take to register this device before the page
 * says it could not (a browser whose push service cannot be reached waits over a minute). */
export const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** Why the browser could not subscribe this device, as the page puts it in words:
 * `unreachable` (its push service did not answer in time), `refused` (the browser refused,
 * e.g. push is off in a private window), `failed` (anything else the browser said). */
export class PushFailure extends Error {
  readonly reason: 'unreachable' | 'refused' | 'failed';
  constructor(reason: 'unreachable' | 'refused' | 'failed', cause: string) {
    super(cause);
    this.reason = reason;
  }
}

/** The browser's subscription, or a PushFailure within SUBSCRIBE_TIMEOUT_MS. */
async function subscribe(worker: ServiceWorkerRegistration, key: Uint8Array<ArrayBuffer>): Promise<PushSubscription> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new PushFailure('unreachable', 'timeout')), SUBSCRIBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), late]);
  } catch (err) {
    if (err instanceof PushFailure) throw err;
    // The browser's own words are in its language, not the page's: only their kind is kept.
    const name = err instanceof DOMException ? err.name : '';
    const text = err instanceof Error ? err.message : String(err);
    if (name === 'NotAllowedError' || /permission/i.test(text)) throw new PushFailure('refused', text);
    if (name === 'AbortError' || name === 'NetworkError' || /registration failed/i.test(text)) throw new PushFailure('unreachable', text);
    throw new PushFailure('failed', text);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks for permission, subscribes this browser with the server's key (again if the key
 * changed) and registers the subscription with the account. 'denied' if the person said no;
 * a PushFailure when the browser could not subscribe (within seconds, never a minute).
 */
export async function notifyThisDevice(): Promise<'subscribed' | 'denied'> {
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  const worker = await navigator.serviceWorker.ready;
  const { public_key } = await ok(api.GET('/api/v1/push/vapid-public-key'));
  const serverKey = fromBase64Url(public_key);
  let subscription = await worker.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options.applicationServerKey, serverKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await subscribe(worker, serverKey);
  const { endpoint, keys } = subscription.toJSON();
  await ok(api.POST('/api/v1/me/push-subscriptions', { body: { endpoint: endpoint ?? '', keys: { p256dh: keys?.p256dh ?? '', auth: keys?.auth ?? '' } } }));
  return 'subscribed';
}

/** Removes this browser's subscription from the account (if listed there) and the browser. */
export async function forgetThisDevice(devices?: PushDevice[]): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  const mine = (devices ?? (await listDevices())).find((d) => d.endpoint === subscription.endpoint);
  if (mine) await removeDevice(mine.id);
  await subscription.unsubscribe();
}
