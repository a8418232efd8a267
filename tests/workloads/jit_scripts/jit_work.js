// A node workload for tests/e2e/record_jit.sh: node --perf-basic-prof (a
// perf map) or --perf-prof (a jitdump). For SECS seconds (argv[2]) the main
// thread spins in jitSpin -> jitDescend (20 levels) -> jitFib (recursive),
// all JavaScript, named functions the JIT compiles.
'use strict';

function jitFib(n) {
	return n < 2 ? n : jitFib(n - 1) + jitFib(n - 2);
}

function jitDescend(depth, n) {
	return depth === 0 ? jitFib(n) : jitDescend(depth - 1, n);
}

function jitSpin(secs) {
	const end = Date.now() + secs * 1000;
	let total = 0;
	while (Date.now() < end)
		total += jitDescend(20, 18);
	return total;
}

jitSpin(Number(process.argv[2] || 2));
