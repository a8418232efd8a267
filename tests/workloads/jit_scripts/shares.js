// heavy() takes twice light()'s CPU; both under round(), which run() calls
// in a loop (so that round is compiled, and named in node's perf map, as
// heavy and light are)
function heavy(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function light(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function round() { return heavy(20000) + light(10000); }
function run(secs) {
	const end = Date.now() + secs * 1000;
	let s = 0;
	while (Date.now() < end) s += round();
	return s;
}
console.log(run(Number(process.argv[2] || 2)) > 0 ? "ok" : "?");
