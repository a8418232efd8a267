// A stand-in for a Pyroscope server (none can be installed here): it takes
// POST /ingest as Pyroscope's HTTP ingest API documents it and checks the
// request as that API requires: name APP{k=v,...}, from and until Unix
// seconds (from <= until), format=pprof, sampleRate an integer when given,
// a multipart/form-data body with the profile in the file field "profile".
// Each profile is saved as OUTDIR/N.pb.gz and each request logged as one
// JSON line in OUTDIR/log.jsonl; a bad request is answered 400 and logged
// with its reason. The first FAIL_FIRST requests are answered 503, as a
// server that is down for a while.
//
// usage: node push_receiver.mjs OUTDIR FAIL_FIRST   (prints the port on stdout)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const [outdir, failFirstArg] = process.argv.slice(2);
const failFirst = Number(failFirstArg || 0);
let nreq = 0, nsaved = 0;

function log(o) { fs.appendFileSync(path.join(outdir, 'log.jsonl'), JSON.stringify(o) + '\n'); }

function multipartFile(body, contentType, field) {
	const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType || '');
	if (!m) return null;
	const boundary = Buffer.from('--' + (m[1] || m[2]));
	let at = body.indexOf(boundary);
	while (at >= 0) {
		const start = at + boundary.length;
		const next = body.indexOf(boundary, start);
		if (next < 0) break;
		const part = body.subarray(start, next);
		const hdrEnd = part.indexOf('\r\n\r\n');
		if (hdrEnd >= 0) {
			const hdr = part.subarray(0, hdrEnd).toString();
			if (new RegExp(`name="${field}"`).test(hdr) && /filename="/.test(hdr))
				return part.subarray(hdrEnd + 4, part.length - 2);	// the CRLF before the boundary
		}
		at = next;
	}
	return null;
}

function check(url, req, body) {
	if (req.method !== 'POST') return 'method ' + req.method;
	if (url.pathname !== '/ingest') return 'path ' + url.pathname;
	const q = url.searchParams;
	const name = q.get('name');
	const nm = /^([A-Za-z0-9._-]+)\{([^{}]*)\}$/.exec(name || '');
	if (!nm) return 'name ' + name;
	const labels = {};
	if (nm[2])
		for (const kv of nm[2].split(',')) {
			const l = /^([A-Za-z_][A-Za-z0-9_.]*)=([^=]+)$/.exec(kv);
			if (!l) return 'label ' + kv;
			labels[l[1]] = l[2];
		}
	for (const k of ['from', 'until'])
		if (!/^[0-9]+$/.test(q.get(k) || '')) return k + ' ' + q.get(k);
	if (Number(q.get('from')) > Number(q.get('until'))) return 'from > until';
	if (q.get('format') !== 'pprof') return 'format ' + q.get('format');
	if (q.has('sampleRate') && !/^[0-9]+$/.test(q.get('sampleRate'))) return 'sampleRate ' + q.get('sampleRate');
	if (!/^multipart\/form-data/i.test(req.headers['content-type'] || '')) return 'content-type ' + req.headers['content-type'];
	const profile = multipartFile(body, req.headers['content-type'], 'profile');
	if (!profile || profile.length < 2) return 'no profile field';
	if (profile[0] !== 0x1f || profile[1] !== 0x8b) return 'profile is not gzip';
	return { app: nm[1], labels, from: Number(q.get('from')), until: Number(q.get('until')),
		 sampleRate: q.has('sampleRate') ? Number(q.get('sampleRate')) : null, profile };
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const i = nreq++;
		if (i < failFirst) {
			log({ i, status: 503 });
			res.writeHead(503).end('down for a while');
			return;
		}
		const body = Buffer.concat(chunks);
		const url = new URL(req.url, 'http://localhost');
		const r = check(url, req, body);
		if (typeof r === 'string') {
			log({ i, status: 400, error: r, url: req.url });
			res.writeHead(400).end(r);
			return;
		}
		const file = path.join(outdir, `${nsaved++}.pb.gz`);
		fs.writeFileSync(file, r.profile);
		log({ i, status: 200, app: r.app, labels: r.labels, from: r.from, until: r.until,
		      sampleRate: r.sampleRate, file, bytes: r.profile.length });
		res.writeHead(200).end();
	});
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
