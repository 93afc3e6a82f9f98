import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
const pid = Number(readFileSync('/tmp/mt/data/webui.lock', 'utf8'));
const token = JSON.parse(readFileSync('/tmp/mt/data/webui.json', 'utf8')).access_token;
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
console.log('rss before', rss());
const s = performance.now();
const r = await autocannon({ url: 'http://127.0.0.1:18555/api/webui/ws-token', headers: { cookie: `bot_session=${token}` }, connections: 16, pipelining: 8, amount: Number(process.argv[2]) });
console.log('secs', Math.round(performance.now() - s) / 1000, 'rps', r.requests.average, JSON.stringify(r.statusCodeStats), 'rss after', rss());
