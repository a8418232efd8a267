// A Java workload for tests/e2e/record_jit.sh, compiled by the test (javac)
// and run with -XX:+DumpPerfMapAtExit (a perf map of the compiled methods,
// written at exit). For SECS seconds (args[0]) the main thread and one more
// (jitThreadMain) spin in jitSpin -> jitDescend (20 levels) -> jitFib
// (recursive): named methods that C1/C2 compile within a second.
public class JitWork {
	static int jitFib(int n) {
		return n < 2 ? n : jitFib(n - 1) + jitFib(n - 2);
	}

	static long jitDescend(int depth, int n) {
		return depth == 0 ? jitFib(n) : jitDescend(depth - 1, n);
	}

	static long jitSpin(double secs) {
		long end = System.nanoTime() + (long)(secs * 1e9), total = 0;
		while (System.nanoTime() < end)
			total += jitDescend(20, 18);
		return total;
	}

	static void jitThreadMain(double secs) {
		jitSpin(secs);
	}

	public static void main(String[] args) throws InterruptedException {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
		Thread t = new Thread(() -> jitThreadMain(secs));
		t.start();
		jitSpin(secs);
		t.join();
	}
}
