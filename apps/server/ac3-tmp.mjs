import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
const pid = Number(readFileSync('/tmp/mt/data/webui.lock', 'utf8'));
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
const amount = Number(process.argv[2] ?? 50000);
const fixed = process.argv[3] === 'fixed';
console.log('rss before', rss());
let n = Number(process.argv[4] ?? 0);
const s = performance.now();
const r = await autocannon({
  url: 'http://127.0.0.1:18555', connections: 16, pipelining: 8, amount,
  requests: [{ method: 'POST', path: '/api/webui/auth/verify', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.9' }, body: '{}',
    ...(fixed ? {} : { setupRequest: (req) => { n++; return { ...req, headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` } }; } }) }],
});
console.log('secs', Math.round(performance.now() - s) / 1000, 'total', r.requests.total, 'rps', r.requests.average, 'non2xx', r.non2xx, 'errors', r.errors, JSON.stringify(r.statusCodeStats));
console.log('rss after', rss());
