//! A capture compares only the pages of the large memories (VRAM, the CGB's banked work
//! RAM, cartridge RAM) that the core wrote since the last one: a game writing all of them
//! in turn, with the pages it touches moving every frame, still rewinds to every frame
//! byte for byte, on a DMG and on a CGB, with scripted writes, loads, resets and seeks
//! between frames.

use backspin_core::{Core, Model, Options, Rom, State};
use backspin_rewind::{Config, Timeline};
use backspin_test_support::InputScript;

/// MBC5 with 128 KiB of RAM, CGB-compatible. Forever: picks a cartridge RAM bank, a work
/// RAM bank and a VRAM bank from a counter, and writes a byte into each at an address that
/// walks through them (VRAM only while the PPU lets it, as a game would; the writes that
/// it blocks change nothing). VRAM bank 1 takes turns, by wraps of the address: the CPU's
/// writes, then a VRAM DMA of 16 bytes of that work RAM every eighth round (CGB only), so
/// frames with only one of them come up.
const SOURCE: &str = r#"
    CART_TYPE $1B ; MBC5+RAM+BATTERY
    RAM_SIZE $04 ; 128 KiB
    CGB_FLAG $80

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld a, $0A
    ld [$0000], a ; cartridge RAM on
    ld hl, $0000 ; the walking offset
    ld de, 0 ; the counter (e) and the number of wraps (d)
.loop:
    inc e
    ld a, e
    and $0F
    ld [$4000], a ; cartridge RAM bank
    ld a, e
    and $07
    ldh [$70], a ; SVBK (CGB only)
    ld a, d
    cpl
    and e
    and $01
    ldh [$4F], a ; VBK (CGB only): bank 1 on odd rounds while d is even
    ; cartridge RAM at $A000 + (hl & $1FFF)
    ld a, h
    and $1F
    or $A0
    ld b, a
    ld c, l
    ld a, e
    xor d
    ld [bc], a
    ; banked work RAM at $D000 + (hl & $0FFF)
    ld a, h
    and $0F
    or $D0
    ld b, a
    ld a, e
    xor d
    ld [bc], a
    ; VRAM at $8000 + (hl & $1FFF)
    ld a, h
    and $1F
    or $80
    ld b, a
    ld a, e
    xor d
    ld [bc], a
    ; every eighth round while d is odd (the CPU writes VRAM bank 1 while it is even): VRAM
    ; DMA of 16 bytes from the banked work RAM at $D000 + (hl & $0FF0) to VRAM bank 1 at
    ; (hl & $1FF0), general-purpose (CGB only)
    ld a, e
    and $07
    cp $01
    jr nz, .next
    bit 0, d
    jr z, .next
    ld a, 1
    ldh [$4F], a ; VBK
    ld a, h
    and $0F
    or $D0
    ldh [$51], a ; HDMA1: source, high
    ld a, l
    ldh [$52], a ; HDMA2: source, low (the low four bits are ignored)
    ld a, h
    and $1F
    ldh [$53], a ; HDMA3: destination in VRAM, high
    ld a, l
    ldh [$54], a ; HDMA4: destination, low
    xor a
    ldh [$55], a ; HDMA5: one block, general-purpose
.next:
    ; the offset moves by 97 bytes a round: a new page every twenty or so; each time it
    ; wraps, the values written change (d), so memory keeps changing
    ld bc, 97
    add hl, bc
    jp nc, .loop
    inc d
    jp .loop
"#;

fn rom() -> Rom {
    Rom::from_bytes(backspin_asm::assemble_str(SOURCE, "written_pages.asm").expect("assembles"))
        .expect("valid ROM")
}

/// Plays with captures (and, on some frames, a scripted write, a load, a reset, or a
/// rewind and replay), keeping every frame's state, then seeks to each frame.
fn plays_back_exactly(model: Model) {
    let core = Core::new(
        rom(),
        Options {
            model,
            boot_rom: None,
        },
    );
    let mut timeline = Timeline::with_config(core, Config::new(32 << 20));
    let mut script = InputScript::new(5);
    let mut states: Vec<Box<State>> = vec![Box::new(*timeline.core().state())];
    let mut saved: Option<Box<State>> = None;
    for frame in 1..=300u64 {
        timeline.set_buttons(script.next_frame());
        match frame % 50 {
            10 => {
                timeline.poke(0xA123, frame as u8);
                let wram_bank = if model == Model::Cgb { 3 } else { 1 };
                timeline
                    .poke_banked(wram_bank, 0xD456, frame as u8)
                    .unwrap();
                timeline.poke_banked(6, 0xA777, frame as u8).unwrap();
            }
            20 => saved = Some(Box::new(*timeline.core().state())),
            30 => timeline.load_state(saved.as_deref().expect("saved at 20")),
            40 => timeline.reset(),
            45 => {
                // Back a few frames and play the same inputs again (redo), then on.
                timeline.seek(frame - 4).unwrap();
                timeline.seek(frame - 1).unwrap();
            }
            _ => {}
        }
        timeline.run_frame();
        assert_eq!(timeline.frame(), frame);
        states.push(Box::new(*timeline.core().state()));
    }
    for (frame, expected) in states.iter().enumerate().rev() {
        timeline.seek(frame as u64).unwrap();
        assert!(
            timeline.core().state().as_bytes() == expected.as_bytes(),
            "{model:?}: frame {frame} differs after a seek"
        );
    }
    // Most frames changed the tracked memories (the test means something; after a load
    // or a reset the game writes what it wrote before for a while).
    let tracked = backspin_core::written_pages::TRACKED_FROM;
    let moved = states
        .windows(2)
        .filter(|pair| pair[0].as_bytes()[tracked..] != pair[1].as_bytes()[tracked..])
        .count();
    assert!(
        moved > 150,
        "{model:?}: only {moved} frames wrote the tracked memories"
    );
}

#[test]
fn dmg_history_is_exact_with_written_pages() {
    plays_back_exactly(Model::Dmg);
}

#[test]
fn cgb_history_is_exact_with_written_pages() {
    plays_back_exactly(Model::Cgb);
}
