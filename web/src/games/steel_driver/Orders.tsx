// Steel Driver's standing orders on the page (RULES.md, "Standing orders and forced moves"):
// pass the pawn this round; a proxy bid (up to a limit, raising by the minimum) or a pass
// for each company still in its box; take goods automatically for a company one controls.
import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { count, defineMessages, useMessages, type Lang } from '../../i18n';
import type { OrderComposerProps } from '../types';
import { COMPANIES, companyLabel, type Company, type View } from './model';
import { useLang } from '../../i18n';

export type Order = Schemas['SteelDriver.Order'];

const msgs = defineMessages({
  title: { en: 'Set an order', ja: '指示を出す' },
  passPawn: { en: 'Pass the pawn this round', ja: 'このラウンドは駒を渡す' },
  company: { en: 'Company', ja: '会社' },
  limit: { en: 'Up to (cubes)', ja: '上限（キューブ）' },
  passWhenOutbid: { en: 'Pass once outbid past it', ja: '上限を超えたらパスする' },
  proxy: { en: 'Proxy bid', ja: '代理入札' },
  passAuction: { en: 'Pass on this company', ja: 'この会社の競りはパス' },
  deliver: { en: (c: string) => `Take goods automatically for ${c}`, ja: (c: string) => `${c}の商品を自動で取る` },
  noAuctions: { en: 'Orders for the auctions can be set in the auction phase.', ja: '競りの指示は競りの段階で出せます。' },
});

/** A Steel Driver order in words. */
export function describeOrder(order: Order, lang: Lang): string {
  const co = (c: Company) => companyLabel(c, lang);
  switch (order.type) {
    case 'pass_pawn':
      return lang === 'ja' ? `第${order.round}ラウンドは駒を渡す` : `Pass the pawn in round ${order.round}`;
    case 'proxy_bid':
      return lang === 'ja'
        ? `第${order.round}ラウンド、${co(order.company)}に最大${order.limit}キューブまで代理入札${order.pass_when_outbid ? '（超えたらパス）' : ''}`
        : `Proxy bid for ${co(order.company)} in round ${order.round}, up to ${count(order.limit, 'cube')}${order.pass_when_outbid ? ', then pass' : ''}`;
    case 'pass_auction':
      return lang === 'ja' ? `第${order.round}ラウンド、${co(order.company)}の競りはパス` : `Pass on ${co(order.company)} in round ${order.round}`;
    case 'deliver':
      return lang === 'ja' ? `${co(order.company)}の商品を自動で取る` : `Take goods automatically for ${co(order.company)}`;
  }
}

export function OrderComposer({ view, mySeat, set, busy }: OrderComposerProps<View, Order>) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const inBox = COMPANIES.filter((c) => {
    const box = view.companies.find((x) => x.company === c);
    return box !== undefined && box.shares_in_box > 0;
  });
  const cubes = view.players.find((p) => p.seat === mySeat)?.cubes ?? 0;
  const [company, setCompany] = useState<Company | ''>('');
  const [limit, setLimit] = useState('');
  const [passWhenOutbid, setPassWhenOutbid] = useState(true);
  const chosen: Company | undefined = company === '' ? inBox[0] : company;
  const mine = view.companies.filter((c) => c.controller === mySeat || c.delivery_controller === mySeat);
  const send = (order: Order) => void set(order).catch(() => {});
  const auctions = view.phase === 'auction';
  return (
    <div class="order-composer" data-testid="sd-order-composer">
      <h3>{m.title}</h3>
      {auctions ? (
        <>
          <p>
            <button type="button" disabled={busy} onClick={() => send({ type: 'pass_pawn', round: view.round })}>
              {m.passPawn}
            </button>
          </p>
          {inBox.length > 0 && chosen && (
            <fieldset>
              <legend>{m.proxy}</legend>
              <label>
                {m.company}{' '}
                <select value={chosen} onChange={(e) => setCompany((e.target as HTMLSelectElement).value as Company)}>
                  {inBox.map((c) => (
                    <option key={c} value={c}>
                      {companyLabel(c, lang)}
                    </option>
                  ))}
                </select>
              </label>{' '}
              <label>
                {m.limit}{' '}
                <input
                  type="number"
                  min={1}
                  max={Math.max(1, cubes)}
                  value={limit === '' ? String(Math.max(1, Math.min(cubes, 5))) : limit}
                  onInput={(e) => setLimit((e.target as HTMLInputElement).value)}
                  data-testid="sd-order-limit"
                />
              </label>{' '}
              <label>
                <input type="checkbox" checked={passWhenOutbid} onChange={(e) => setPassWhenOutbid((e.target as HTMLInputElement).checked)} />{' '}
                {m.passWhenOutbid}
              </label>{' '}
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  send({
                    type: 'proxy_bid',
                    round: view.round,
                    company: chosen,
                    limit: Number(limit === '' ? Math.max(1, Math.min(cubes, 5)) : limit),
                    pass_when_outbid: passWhenOutbid,
                  })
                }
              >
                {m.proxy}
              </button>{' '}
              <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'pass_auction', round: view.round, company: chosen })}>
                {m.passAuction}
              </button>
            </fieldset>
          )}
        </>
      ) : (
        <p class="muted">{m.noAuctions}</p>
      )}
      {mine.map((c) => (
        <p key={c.company}>
          <button type="button" class="secondary" disabled={busy} onClick={() => send({ type: 'deliver', company: c.company })}>
            {m.deliver(companyLabel(c.company, lang))}
          </button>
        </p>
      ))}
    </div>
  );
}
