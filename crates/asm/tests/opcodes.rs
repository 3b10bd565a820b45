//! Every one of the 500 legal SM83 opcodes assembles to the right bytes.
//!
//! The expected table is built here from the opcode map's octal structure (Pan Docs,
//! "CPU instruction set"; the x/y/z decomposition), independently of the assembler's own
//! `match`-based encoder, so a slip in either shows up as a mismatch.

use backspin_asm::assemble_snippet;

const R8: [&str; 8] = ["b", "c", "d", "e", "h", "l", "[hl]", "a"];
const RP: [&str; 4] = ["bc", "de", "hl", "sp"];
const RP2: [&str; 4] = ["bc", "de", "hl", "af"];
const CC: [&str; 4] = ["nz", "z", "nc", "c"];
const ALU: [&str; 8] = [
    "add a,", "adc a,", "sub a,", "sbc a,", "and a,", "xor a,", "or a,", "cp a,",
];
const ROT: [&str; 8] = ["rlc", "rrc", "rl", "rr", "sla", "sra", "swap", "srl"];

/// Where the snippets are placed (so `jr` targets are absolute addresses near it).
const ORIGIN: u16 = 0x1230;

/// The source text and the bytes for a non-prefixed opcode, or `None` if it is illegal or
/// the $CB prefix. Immediates are $12 (n8) and $3456 (n16); `jr` jumps 5 bytes forward.
fn unprefixed(op: u8) -> Option<(String, Vec<u8>)> {
    let (x, y, z) = (op >> 6, usize::from((op >> 3) & 7), usize::from(op & 7));
    let (p, q) = (y >> 1, y & 1);
    let jr_target = format!("${:04X}", ORIGIN + 2 + 5);
    let text: String = match (x, z) {
        (0, 0) => match y {
            0 => "nop".into(),
            1 => "ld [$3456], sp".into(),
            2 => "stop".into(),
            3 => format!("jr {jr_target}"),
            _ => format!("jr {}, {jr_target}", CC[y - 4]),
        },
        (0, 1) if q == 0 => format!("ld {}, $3456", RP[p]),
        (0, 1) => format!("add hl, {}", RP[p]),
        (0, 2) => {
            let mem = ["[bc]", "[de]", "[hl+]", "[hl-]"][p];
            if q == 0 {
                format!("ld {mem}, a")
            } else {
                format!("ld a, {mem}")
            }
        }
        (0, 3) => format!("{} {}", ["inc", "dec"][q], RP[p]),
        (0, 4) => format!("inc {}", R8[y]),
        (0, 5) => format!("dec {}", R8[y]),
        (0, 6) => format!("ld {}, $12", R8[y]),
        (0, 7) => ["rlca", "rrca", "rla", "rra", "daa", "cpl", "scf", "ccf"][y].into(),
        (1, _) if op == 0x76 => "halt".into(),
        (1, _) => format!("ld {}, {}", R8[y], R8[z]),
        (2, _) => format!("{} {}", ALU[y], R8[z]),
        (3, 0) => match y {
            0..=3 => format!("ret {}", CC[y]),
            4 => "ldh [$12], a".into(),
            5 => "add sp, $12".into(),
            6 => "ldh a, [$12]".into(),
            _ => "ld hl, sp+$12".into(),
        },
        (3, 1) if q == 0 => format!("pop {}", RP2[p]),
        (3, 1) => ["ret", "reti", "jp hl", "ld sp, hl"][p].into(),
        (3, 2) => match y {
            0..=3 => format!("jp {}, $3456", CC[y]),
            4 => "ldh [c], a".into(),
            5 => "ld [$3456], a".into(),
            6 => "ldh a, [c]".into(),
            _ => "ld a, [$3456]".into(),
        },
        (3, 3) => match y {
            0 => "jp $3456".into(),
            6 => "di".into(),
            7 => "ei".into(),
            _ => return None, // $CB prefix, $D3, $DB, $E3, $EB
        },
        (3, 4) if y < 4 => format!("call {}, $3456", CC[y]),
        (3, 5) if q == 0 => format!("push {}", RP2[p]),
        (3, 5) if p == 0 => "call $3456".into(),
        (3, 6) => format!("{} $12", ALU[y]),
        (3, 7) => format!("rst ${:02X}", y * 8),
        _ => return None, // $E4 $EC $F4 $FC $DD $ED $FD and friends
    };
    let mut bytes = vec![op];
    let operand_bytes: &[u8] = match op {
        0x10 => &[0x00],
        0x18 | 0x20 | 0x28 | 0x30 | 0x38 => &[5],
        0x08 | 0xC3 | 0xCD | 0xEA | 0xFA => &[0x56, 0x34],
        _ if x == 0 && z == 1 && q == 0 => &[0x56, 0x34],
        _ if x == 3 && matches!(z, 2 | 4) && y < 4 => &[0x56, 0x34],
        0xE0 | 0xE8 | 0xF0 | 0xF8 => &[0x12],
        _ if z == 6 && (x == 0 || x == 3) => &[0x12],
        _ => &[],
    };
    bytes.extend_from_slice(operand_bytes);
    Some((text, bytes))
}

fn prefixed(op: u8) -> (String, Vec<u8>) {
    let (x, y, z) = (op >> 6, usize::from((op >> 3) & 7), usize::from(op & 7));
    let text = match x {
        0 => format!("{} {}", ROT[y], R8[z]),
        1 => format!("bit {y}, {}", R8[z]),
        2 => format!("res {y}, {}", R8[z]),
        _ => format!("set {y}, {}", R8[z]),
    };
    (text, vec![0xCB, op])
}

/// All 500 legal opcodes as (source, bytes).
fn table() -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<_> = (0..=255u8).filter_map(unprefixed).collect();
    all.extend((0..=255u8).map(prefixed));
    all
}

#[test]
fn every_opcode_assembles_to_its_bytes() {
    let table = table();
    assert_eq!(
        table.len(),
        500,
        "245 unprefixed + 255 ... the table itself is wrong"
    );
    let mut failures = Vec::new();
    for (text, bytes) in &table {
        for variant in [text.clone(), text.to_uppercase()] {
            match assemble_snippet(&variant, ORIGIN) {
                Ok(out) if out == *bytes => {}
                Ok(out) => failures.push(format!("{variant}: got {out:02X?}, want {bytes:02X?}")),
                Err(e) => failures.push(format!("{variant}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn whole_table_as_one_program() {
    // Assembled together, each instruction lands after the previous one.
    let table = table();
    let source: String = table
        .iter()
        .filter(|(text, _)| !text.starts_with("jr"))
        .map(|(text, _)| format!("    {text}\n"))
        .collect();
    let want: Vec<u8> = table
        .iter()
        .filter(|(text, _)| !text.starts_with("jr"))
        .flat_map(|(_, b)| b.clone())
        .collect();
    assert_eq!(assemble_snippet(&source, 0).unwrap(), want);
}

#[test]
fn alternative_spellings() {
    let cases: &[(&str, &[u8])] = &[
        ("ld a, [hli]", &[0x2A]),
        ("ldi a, [hl]", &[0x2A]),
        ("ld [hld], a", &[0x32]),
        ("ldd [hl], a", &[0x32]),
        ("ld [$FF00+c], a", &[0xE2]),
        ("ld a, [$ff00 + c]", &[0xF2]),
        ("ld [c], a", &[0xE2]),
        ("ldh [$FF44], a", &[0xE0, 0x44]),
        ("ldh a, [$ff80]", &[0xF0, 0x80]),
        ("ld hl, sp-2", &[0xF8, 0xFE]),
        ("ld hl, sp + 127", &[0xF8, 0x7F]),
        ("add sp, -$80", &[0xE8, 0x80]),
        ("jp [hl]", &[0xE9]),
        ("add b", &[0x80]),
        ("cp $FF", &[0xFE, 0xFF]),
        ("xor a", &[0xAF]),
        ("ld b, -1", &[0x06, 0xFF]),
        ("ld hl, -1", &[0x21, 0xFF, 0xFF]),
        ("stop $00", &[0x10, 0x00]),
        ("rst 8", &[0xCF]),
        ("ld a, 'A'", &[0x3E, 0x41]),
        ("ld a, HIGH($1234) + LOW($1234)", &[0x3E, 0x46]),
        ("ld a, (3 + 4) * 2 % 5 | %1000_0000", &[0x3E, 0x84]),
        ("ld de, 1 << 15 >> 3 ^ ~0 & $FFFF", &[0x11, 0xFF, 0xEF]),
        ("jr @", &[0x18, 0xFE]),
        (
            "db 1, \"AB\", -1\ndw $1234, @",
            &[1, 0x41, 0x42, 0xFF, 0x34, 0x12, 4, 0x10],
        ),
        ("ds 3, $AA", &[0xAA, 0xAA, 0xAA]),
    ];
    for (source, want) in cases {
        let got = assemble_snippet(source, 0x1000).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(got, *want, "{source}");
    }
}
