//! The scan → debounce → records step allocates nothing (issue 7): a
//! counting global allocator watches a run of scans on every design, idle
//! and while pieces move. It counts the scanning thread's allocations only:
//! libtest's own thread allocates on its own schedule (it failed this test
//! 2 runs in 6 at load 9, on code that scans without allocating).

use eboard::sensors::virtual_hw::{calibrate_virtual, VirtualBoard};
use eboard::sensors::{HwDesign, Sample, Scanner, ScannerConfig, VirtualOptions};
use shakmaty::{Board, Square};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations count (the scanning thread, around
    /// the scans). A `const` `Cell<bool>`: reading it never allocates.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTED.try_with(Cell::get).unwrap_or(false) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn scanning_allocates_nothing() {
    for name in [
        "hc165-chain",
        "mcp23017-bank",
        "gpio-matrix",
        "mcp3008-hall",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("hw")
            .join(format!("{name}.toml"));
        let d = HwDesign::load(&path).unwrap();
        let opts = VirtualOptions::default();
        let cal = calibrate_virtual(&d, &opts).unwrap();
        let board = VirtualBoard::new(&d, &opts);
        let start = Sample::from_board(&Board::default(), d.is_analog());
        let e2 = 1u64 << Square::E2 as u32;
        let moved = Sample {
            occupied: start.occupied & !e2,
            white: start.white & !e2,
        };
        board.show(start);
        let mut s = Scanner::new(
            board.array(),
            &d,
            Some(&cal),
            ScannerConfig::default(),
            start,
        )
        .unwrap();
        s.init().unwrap();
        let before = ALLOCS.load(Ordering::Relaxed);
        let mut records = 0;
        COUNTED.set(true);
        for k in 0..400u64 {
            board.show(if k / 20 % 2 == 1 { moved } else { start });
            records += s.scan(k * 10).unwrap().count();
        }
        COUNTED.set(false);
        let after = ALLOCS.load(Ordering::Relaxed);
        assert_eq!(after - before, 0, "{name}: allocations during scans");
        assert_eq!(records, 19, "{name}: one lift or place per change");
    }
}
