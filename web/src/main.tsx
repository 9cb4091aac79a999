import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);

// The service worker (public/sw.js): push notifications and the page's shell offline. Only a
// built page has one; `npm run dev` serves files that change under it.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  void navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => console.warn('service worker not registered', error));
}
