// node cpuprofile_share.js PROFILE NAME...: for each NAME, a line
// "NAME SHARE CALLERS SAMPLES": the share (%) of the V8 CPU profile's samples
// (node --cpu-prof) whose stack holds a function of that name (its total
// time), the names of its callers, and the profile's sample count.
const p = JSON.parse(require('fs').readFileSync(process.argv[2]));
const byId = new Map(), parent = new Map();
for (const n of p.nodes) {
	byId.set(n.id, n);
	for (const c of n.children || []) parent.set(c, n.id);
}
const count = new Map();
for (const s of p.samples) count.set(s, (count.get(s) || 0) + 1);
for (const name of process.argv.slice(3)) {
	let m = 0;
	const callers = new Set();
	for (const [id, k] of count) {
		let has = false;
		for (let q = id; q !== undefined; q = parent.get(q)) {
			if (byId.get(q).callFrame.functionName !== name) continue;
			has = true;
			const up = parent.get(q);
			callers.add(up === undefined ? '-' : byId.get(up).callFrame.functionName || '(anonymous)');
		}
		if (has) m += k;
	}
	console.log(name, (100 * m / p.samples.length).toFixed(2), [...callers].join(',') || '-', p.samples.length);
}
