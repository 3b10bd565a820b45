//! Random-input tests for the cartridge parsers and mappers: ROM images and battery saves
//! must give `Ok` or `Err`, never a panic, and every accepted ROM must survive any access
//! with any `MbcState` bit pattern (states come from save files and rewinds).
//!
//! The seed is printed; rerun a failure with `CART_FUZZ_SEED=<seed>`.

use backspin_core::Rom;
use backspin_core::state::{CART_RAM_MAX, MbcState};
use backspin_test_support::SplitMix64;

/// Random bytes and mapper states from the shared generator.
trait RandomCart {
    fn bytes(&mut self, len: usize) -> Vec<u8>;
    fn mbc_state(&mut self) -> MbcState;
}

impl RandomCart for SplitMix64 {
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        self.fill(&mut out);
        out
    }
    fn mbc_state(&mut self) -> MbcState {
        let mut raw = [0u8; size_of::<MbcState>()];
        self.fill(&mut raw);
        bytemuck::cast(raw)
    }
}

fn seed() -> u64 {
    let seed = std::env::var("CART_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    println!("cart fuzz seed: {seed} (set CART_FUZZ_SEED to repeat)");
    seed
}

/// A fixed default keeps runs reproducible; set CART_FUZZ_SEED to explore.
const DEFAULT_SEED: u64 = 0x00BA_C5B1_2026_1121;

const SUPPORTED_TYPES: [u8; 20] = [
    0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x08, 0x09, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x19, 0x1A, 0x1B,
    0x1C, 0x1D, 0x1E, 0x0B,
];

/// Random bytes, some shaped to get past the header checks so the mappers get exercised.
fn random_image(rng: &mut SplitMix64) -> Vec<u8> {
    let len = rng.below(300 * 1024 + 1) as usize;
    let mut bytes = rng.bytes(len);
    if rng.below(2) == 0 && len >= 0x150 {
        bytes[0x147] = SUPPORTED_TYPES[rng.below(SUPPORTED_TYPES.len() as u64) as usize];
        // Mostly a ROM size that fits the file, sometimes one that does not.
        let fits = (0..=8u8)
            .take_while(|&code| (0x8000usize << code) <= len)
            .count() as u64;
        bytes[0x148] = if fits > 0 && rng.below(8) != 0 {
            rng.below(fits) as u8
        } else {
            rng.below(12) as u8
        };
        bytes[0x149] = rng.below(7) as u8;
    }
    bytes
}

/// Random reads and writes over the whole cartridge map with a random state.
fn exercise(rom: &Rom, rng: &mut SplitMix64, ram: &mut [u8; CART_RAM_MAX]) {
    let mut mbc = if rng.below(4) == 0 {
        rom.power_on_mbc()
    } else {
        rng.mbc_state()
    };
    let mut sink = 0u8;
    for _ in 0..400 {
        let r = rng.next_u64();
        let now = match rng.below(4) {
            0 => rng.next_u64(),
            _ => rng.below(1 << 32),
        };
        let addr = r as u16;
        let value = (r >> 16) as u8;
        match (r >> 24) % 6 {
            0 => sink ^= rom.read(&mbc, addr),
            1 => rom.write(&mut mbc, addr & 0x7FFF, value, now),
            2 => sink ^= rom.read_ram(&mbc, ram, 0xA000 | (addr & 0x1FFF), now),
            3 => {
                rom.write_ram(&mut mbc, ram, 0xA000 | (addr & 0x1FFF), value, now);
            }
            4 => match (r >> 32) % 5 {
                0 => rom.rtc_advance_seconds(&mut mbc, rng.next_u64() >> (r >> 40 & 63), now),
                1 => sink ^= rom.rtc_registers(&mbc, now).map_or(0, |regs| regs[0]),
                2 => sink ^= u8::from(rom.rumble(&mbc)),
                3 => sink ^= rom.battery_bytes(&mbc, ram, rng.next_u64()).len() as u8,
                _ => mbc = rng.mbc_state(),
            },
            // Unchecked addresses too: the map only ever passes its own ranges, but the
            // functions must not care.
            _ => {
                sink ^= rom.read(&mbc, addr);
                sink ^= rom.read_ram(&mbc, ram, addr, now);
                rom.write_ram(&mut mbc, ram, addr, value, now);
            }
        }
    }
    std::hint::black_box(sink);
}

#[test]
fn random_roms_never_panic() {
    let mut rng = SplitMix64::new(seed());
    let mut ram: Box<[u8; CART_RAM_MAX]> = Box::new([0; CART_RAM_MAX]);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..10_000 {
        let image = random_image(&mut rng);
        match Rom::from_bytes(image) {
            Ok(rom) => {
                ok += 1;
                let _ = (rom.title(), rom.header(), rom.warnings(), rom.bytes().len());
                exercise(&rom, &mut rng, &mut ram);
            }
            Err(e) => {
                err += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    println!("random ROMs: {ok} accepted, {err} rejected");
    assert!(
        ok > 1000,
        "too few images got past the header ({ok}); the generator is off"
    );
}

#[test]
fn random_battery_saves_never_panic() {
    let mut rng = SplitMix64::new(seed() ^ 0x5EED);
    // One cart per shape of save: RAM only, MBC2, clock with and without RAM, no battery.
    let carts: Vec<Rom> = [
        (0x03, 3),
        (0x06, 0),
        (0x10, 2),
        (0x0F, 0),
        (0x1B, 4),
        (0x01, 0),
    ]
    .into_iter()
    .map(|(ty, ram_code)| {
        let mut image = vec![0u8; 0x8000];
        image[0x147] = ty;
        image[0x149] = ram_code;
        Rom::from_bytes(image).expect("test cart")
    })
    .collect();
    let mut ram: Box<[u8; CART_RAM_MAX]> = Box::new([0; CART_RAM_MAX]);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..10_000 {
        let rom = &carts[rng.below(carts.len() as u64) as usize];
        let expected = rom.header().ram_bytes;
        let len = match rng.below(4) {
            0 => rng.below(CART_RAM_MAX as u64 + 100) as usize,
            1 => expected,
            2 => expected + [44, 48][rng.below(2) as usize],
            _ => (expected + rng.below(100) as usize).saturating_sub(50),
        };
        let save = rng.bytes(len);
        let mut mbc = rng.mbc_state();
        rng.fill(&mut ram[..]);
        let (mbc_before, ram_before) = (mbc, ram.clone());
        match rom.load_battery(&mut mbc, &mut ram, &save) {
            Ok(_) => {
                ok += 1;
                // What was loaded saves back at the size the cart uses.
                let out = rom.battery_bytes(&mbc, &ram, rng.next_u64());
                assert_eq!(out.len(), rom.battery_len());
                assert_eq!(out[..expected], save[..expected]);
            }
            Err(e) => {
                err += 1;
                assert!(!e.to_string().is_empty());
                assert_eq!(mbc, mbc_before, "a refused save changed the mapper state");
                assert!(ram[..] == ram_before[..], "a refused save changed RAM");
            }
        }
    }
    println!("random battery saves: {ok} accepted, {err} rejected");
    assert!(
        ok > 1000 && err > 1000,
        "unbalanced generator: {ok} ok, {err} errors"
    );
}
