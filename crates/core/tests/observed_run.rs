//! `Core::run_observed` reaches the `State` `Core::run_frame` reaches, frame by frame, with
//! and without polling loops skipped, and reports every instruction it does not skip.

use backspin_core::state::{CpuMode, CpuState};
use backspin_core::{Core, Model, Options, Rom, StepObserver};
use backspin_test_support::or_skip;
use bytemuck::bytes_of;

struct Counting {
    skip_loops: bool,
    starts: u64,
    writes: u64,
}

impl StepObserver for Counting {
    fn stop_before(&mut self, cpu: &CpuState, _m_cycle: u64) -> bool {
        if cpu.mode() == CpuMode::Running {
            self.starts += 1;
        }
        false
    }
    fn write(&mut self, _addr: u16, _value: u8) -> bool {
        self.writes += 1;
        false
    }
    fn after_step(&mut self, _before: &CpuState, _after: &CpuState, _interrupt: bool) -> bool {
        false
    }
    fn may_skip_loop_at(&mut self, _pc: u16) -> bool {
        self.skip_loops
    }
}

fn power_on(bytes: &[u8]) -> Core {
    Core::new(
        Rom::from_bytes(bytes.to_vec()).expect("test ROM parses"),
        Options {
            model: Model::Dmg,
            boot_rom: None,
        },
    )
}

#[test]
fn an_observed_run_reaches_the_state_a_plain_run_reaches() {
    for name in ["homebrew/opus5.gb", "homebrew/pocket.gb"] {
        let Some(bytes) = or_skip(backspin_harness::read_test_rom(name)) else {
            return;
        };
        let mut plain = power_on(&bytes);
        let mut counts = Vec::new();
        for skip_loops in [true, false] {
            let mut watched = power_on(&bytes);
            let mut observer = Counting {
                skip_loops,
                starts: 0,
                writes: 0,
            };
            for call in 0..300 {
                if !skip_loops {
                    plain.run_frame();
                }
                watched.run_observed(u64::MAX, &mut observer);
                if !skip_loops {
                    assert!(
                        bytes_of(plain.state()) == bytes_of(watched.state()),
                        "{name}: state differs after call {call}"
                    );
                }
            }
            if skip_loops {
                plain = power_on(&bytes);
                for _ in 0..300 {
                    plain.run_frame();
                }
                assert!(
                    bytes_of(plain.state()) == bytes_of(watched.state()),
                    "{name}: state differs with polling loops skipped"
                );
                plain = power_on(&bytes);
            }
            counts.push((observer.starts, observer.writes));
        }
        // Skipped loop iterations are instructions not reported, but never writes.
        assert!(counts[0].0 <= counts[1].0, "{name}: {counts:?}");
        assert_eq!(counts[0].1, counts[1].1, "{name}: {counts:?}");
    }
}
