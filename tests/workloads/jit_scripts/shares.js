// heavy() takes twice light()'s CPU; both under run(), called from the top level
function heavy(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function light(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function run(secs) {
	const end = Date.now() + secs * 1000;
	let s = 0;
	while (Date.now() < end) { s += heavy(200000); s += light(100000); }
	return s;
}
console.log(run(Number(process.argv[2] || 2)) > 0 ? "ok" : "?");
