//! A short trace's fixed costs, natively: one scenario (default `write`/`clear`) traced and written as
//! the page gets it (serde_json, as the page gets it) many times over, for a profiler (`perf record`), with the
//! time and the number of allocations per trace, and the time per step.
//! Arguments: `FIGURE SCENARIO RUNS [en]` (Chinese unless `en`).
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;
use todo_trace::host::run::trace;
use todo_trace::lesson::Lang;

/// The system allocator, counting its allocations (a reallocation counts as one).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        System.realloc(ptr, layout, size)
    }
}

// Natively only: built for wasm32 (as `cargo test --target wasm32-unknown-unknown` builds examples), the
// crate's own allocator is the global one there, and the count stays 0.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let figure = args.next().unwrap_or_else(|| "write".into());
    let scenario = args.next().unwrap_or_else(|| "clear".into());
    let runs: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(30_000);
    // The bench's language by default; `en` for the English page's (all-ASCII) traces.
    let lang = if args.next().as_deref() == Some("en") { Lang::En } else { Lang::Zh };
    let once = || serde_json::to_string(&trace(&figure, &scenario, lang).unwrap()).unwrap();
    let steps = trace(&figure, &scenario, lang).unwrap().recording.steps.len();
    let before = ALLOCATIONS.load(Relaxed);
    std::hint::black_box(once());
    let allocations = ALLOCATIONS.load(Relaxed) - before;
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(once());
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / f64::from(runs);
    println!(
        "{figure}/{scenario}: {each:.2} us and {allocations} allocations a trace, {:.3} us a step of {steps} ({runs} runs)",
        each / steps as f64
    );
}
