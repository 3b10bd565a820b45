// sameboy-trace: SameBoy's side of a differential trace, beside `tools/sameboy-run.c` (the same
// power-on, `tools/sameboy-power-on.h`). A hand tool; CI
// never builds SameBoy.
//
// Usage:
//   sameboy-trace ROM DMG|CGB FRAME
//     One line per instruction of the frame after SameBoy's FRAMEth VBlank callback:
//     M-cycles since that callback (approximate: SameBoy defers cycles), LY, STAT, PC (of the
//     opcode), registers, IME, IF, IE. Compare with Backspin's
//     `cargo run --release -p backspin-core --example cpu_trace -- ROM dmg BOOT FRAME-1`
//     (SameBoy's frame N is Backspin's N-1; Backspin also lists interrupt dispatches and
//     halted M-cycles, which SameBoy's execution callback does not see).
//   sameboy-trace ROM DMG|CGB EVERY TOTAL OUT.bin
//     Appends every EVERYth frame up to TOTAL to OUT.bin as 160x144 DMG shades (0-3, one
//     byte a pixel; the grey palette read back). With ZERO_RAM set, work RAM, HRAM and OAM
//     start zeroed as in Backspin instead of SameBoy's seeded noise, so that programs that
//     read uninitialised RAM (gejmboj, 20y) can be compared.
// Build (B = the folder ../shared/peers/build-sameboy.sh built into):
//   cc -O2 -std=gnu11 -I"$B/SameBoy" -o "$B/sameboy-trace" tools/sameboy-trace.c
//      "$B/SameBoy/build/lib/libsameboy.a" -lm
// Boot ROMs come from $SAMEBOY_BOOT_ROMS.
#define GB_INTERNAL
#include <Core/gb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sameboy-power-on.h"

static uint32_t pixels[256 * 224];
static long frames_done, trace_frame;
static uint64_t ticks, frame_start;
static int tracing;

static void on_vblank(GB_gameboy_t *gb, GB_vblank_type_t type)
{
	(void) type;
	frames_done++;
	if (frames_done == trace_frame) { tracing = 1; frame_start = ticks + gb->cycles_since_run + gb->pending_cycles * 2; }
	else if (frames_done == trace_frame + 1) tracing = 0;
}
static void on_exec(GB_gameboy_t *gb, uint16_t addr, uint8_t opcode)
{
	if (!tracing) return;
	(void) opcode;
	// The callback runs after the opcode fetch: one M-cycle (8 ticks) into the instruction.
	uint64_t now = ticks + gb->cycles_since_run;
	printf("%6lld LY=%3u STAT=%02X PC=%04X AF=%04X BC=%04X DE=%04X HL=%04X SP=%04X IME=%u IF=%02X IE=%02X line_cyc=%u pend=%u\n",
	       (long long) ((int64_t) (now - frame_start) / 8 - 1), gb->io_registers[GB_IO_LY], gb->io_registers[GB_IO_STAT], addr,
	       gb->af, gb->bc, gb->de, gb->hl, gb->sp, gb->ime, gb->io_registers[GB_IO_IF], gb->interrupt_enable, gb->cycles_for_line, gb->pending_cycles);
}
static long shot_every; static FILE *shot_out;
static void on_vblank_shot(GB_gameboy_t *gb, GB_vblank_type_t type)
{
	(void) gb; (void) type;
	frames_done++;
	if (frames_done % shot_every == 0) {
		for (unsigned i = 0; i < 160 * 144; i++) {
			unsigned g = pixels[i] & 0xFF;
			fputc(g >= 0xEE ? 0 : g >= 0x99 ? 1 : g >= 0x44 ? 2 : 3, shot_out);
		}
	}
}
int main(int argc, char **argv)
{
	if (argc == 6) { shot_every = atol(argv[3]); shot_out = fopen(argv[5], "wb"); trace_frame = atol(argv[4]); }
	else if (argc != 4) { fprintf(stderr, "usage: sameboy-trace ROM DMG|CGB FRAMES\n"); return 2; }
	GB_model_t model = power_on_model(argv[2]);
	if (!shot_every) trace_frame = strtol(argv[3], NULL, 10);
	GB_gameboy_t *gb = power_on(argv[1], model, pixels);
	if (getenv("ZERO_RAM")) { memset(gb->ram, 0, gb->ram_size); memset(gb->hram, 0, sizeof(gb->hram)); memset(gb->oam, 0, sizeof(gb->oam)); }
	if (shot_every) GB_set_vblank_callback(gb, on_vblank_shot);
	else { GB_set_vblank_callback(gb, on_vblank); GB_set_execution_callback(gb, on_exec); }
	while (frames_done <= trace_frame) ticks += GB_run(gb);
	return 0;
}
