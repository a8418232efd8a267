// Checks a speedscope file as speedscope's file format defines it
// (https://www.speedscope.app/file-format-schema.json; what pprobe writes of
// it), then prints one line per profile for the shell test to compare:
//   NAME<TAB>TOTAL<TAB>SAMPLES<TAB>TOP_SELF_FRAME<TAB>UNIT
// (TOTAL the sum of its weights, TOP_SELF_FRAME the leaf of most weight).
// Usage: node speedscope_check.mjs FILE. Exit 0 valid, 1 not (each reason
// on stderr as "FAIL: ...").
import { readFileSync } from 'node:fs';

const fails = [];
const fail = (m) => { if (fails.length < 20) fails.push(m); };
let j;
try {
	j = JSON.parse(readFileSync(process.argv[2], 'utf8'));
} catch (e) {
	console.error(`FAIL: not JSON: ${e.message}`);
	process.exit(1);
}
const isInt = (v) => Number.isSafeInteger(v);
if (j.$schema !== 'https://www.speedscope.app/file-format-schema.json') fail(`$schema is ${j.$schema}`);
if (typeof j.exporter !== 'string' || !/^pprobe@\S+$/.test(j.exporter)) fail(`exporter is ${j.exporter}`);
if (typeof j.name !== 'string' || !j.name) fail(`name is ${j.name}`);
const frames = j.shared && j.shared.frames;
if (!Array.isArray(frames)) fail('shared.frames is not an array');
const used = new Uint8Array(frames ? frames.length : 0);
const names = new Set();
(frames || []).forEach((f, i) => {
	if (typeof f.name !== 'string' || !f.name) fail(`frame ${i} has no name`);
	if (names.has(f.name)) fail(`frame name ${f.name} twice`);
	names.add(f.name);
	if ('file' in f && (typeof f.file !== 'string' || !f.file)) fail(`frame ${i}: file ${f.file}`);
	if ('line' in f && !(isInt(f.line) && f.line > 0)) fail(`frame ${i}: line ${f.line}`);
	for (const k of Object.keys(f)) if (!['name', 'file', 'line', 'col'].includes(k)) fail(`frame ${i}: key ${k}`);
});
if (!Array.isArray(j.profiles)) fail('profiles is not an array');
const out = [];
const pnames = new Set();
let busiest = -1, most = -1;
(j.profiles || []).forEach((p, pi) => {
	const where = `profile ${pi} (${p.name})`;
	if (p.type !== 'sampled') fail(`${where}: type ${p.type}`);
	if (typeof p.name !== 'string' || !p.name) fail(`${where}: no name`);
	if (pnames.has(p.name)) fail(`${where}: a second profile of that name`);
	pnames.add(p.name);
	if (!['none', 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'bytes'].includes(p.unit))
		fail(`${where}: unit ${p.unit}`);
	if (!Array.isArray(p.samples) || !Array.isArray(p.weights) || p.samples.length !== p.weights.length) {
		fail(`${where}: samples and weights differ in length`);
		return;
	}
	if (!p.samples.length) fail(`${where}: no samples`);
	let total = 0;
	const self = new Map();
	p.samples.forEach((s, si) => {
		if (!Array.isArray(s) || !s.length) { fail(`${where}: sample ${si} is no frame list`); return; }
		for (const fi of s) {
			if (!isInt(fi) || fi < 0 || fi >= frames.length) { fail(`${where}: sample ${si}: frame ${fi} out of range`); return; }
			used[fi] = 1;
		}
		const w = p.weights[si];
		if (!isInt(w) || w < 0) fail(`${where}: weight ${si} is ${w}`);
		total += w;
		const leaf = frames[s[s.length - 1]].name;
		self.set(leaf, (self.get(leaf) || 0) + w);
	});
	if (p.startValue !== 0) fail(`${where}: startValue ${p.startValue}`);
	if (p.endValue !== total) fail(`${where}: endValue ${p.endValue}, the weights sum to ${total}`);
	if (total > most) { most = total; busiest = pi; }
	const top = [...self.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
	out.push([p.name, total, p.samples.length, top ? top[0] : '', p.unit].join('\t'));
});
if (j.profiles && j.profiles.length && j.activeProfileIndex !== busiest)
	fail(`activeProfileIndex ${j.activeProfileIndex}, the busiest profile is ${busiest}`);
used.forEach((u, i) => { if (!u) fail(`frame ${i} (${frames[i].name}) is in no sample`); });
if (fails.length) {
	for (const m of fails) console.error(`FAIL: ${m}`);
	process.exit(1);
}
console.log(out.join('\n'));
