import autocannon from 'autocannon';
const r = await autocannon({ url: 'http://127.0.0.1:18555/api/webui/health', connections: 16, pipelining: 8, amount: 20000 });
console.log('rps', r.requests.average, JSON.stringify(r.statusCodeStats));
