// sameboy-trace: SameBoy's side of a differential trace, beside `tools/sameboy-run.c` (same
// power-on: DMG-B or CGB-E from SameBoy's own boot ROM, the same RAM seed). A hand tool; CI
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
//   cc -O2 -std=gnu11 -I"$B/SameBoy" -o "$B/sameboy-trace" tools/sameboy-trace.c \
//      "$B/SameBoy/build/lib/libsameboy.a" -lm
// Boot ROMs come from $SAMEBOY_BOOT_ROMS.
#define GB_INTERNAL
#include <Core/gb.h>
#include <Core/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define POWER_ON_SEED 0x5A3EB0075A3EB007ULL
static uint32_t pixels[256 * 224];
static const char *boot_dir;
static long frames_done, trace_frame;
static uint64_t ticks, frame_start;
static int tracing;

static void on_boot_rom_request(GB_gameboy_t *gb, GB_boot_rom_t type)
{
	const char *file = type == GB_BOOT_ROM_DMG || type == GB_BOOT_ROM_DMG_0 ? "dmg_boot.bin" : "cgb_boot.bin";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", boot_dir, file);
	if (GB_load_boot_rom(gb, path)) { fprintf(stderr, "no boot ROM\n"); exit(2); }
}
static uint32_t encode_rgb(GB_gameboy_t *gb, uint8_t r, uint8_t g, uint8_t b) { (void) gb; return ((uint32_t) r << 16) | ((uint32_t) g << 8) | b; }
static char *no_input(GB_gameboy_t *gb) { (void) gb; return NULL; }
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
	boot_dir = getenv("SAMEBOY_BOOT_ROMS");
	GB_model_t model = strcasecmp(argv[2], "DMG") ? GB_MODEL_CGB_E : GB_MODEL_DMG_B;
	if (!shot_every) trace_frame = strtol(argv[3], NULL, 10);
	GB_random_seed(POWER_ON_SEED);
	GB_gameboy_t *gb = GB_init(GB_alloc(), model);
	GB_set_input_callback(gb, no_input);
	GB_set_async_input_callback(gb, NULL);
	GB_set_boot_rom_load_callback(gb, on_boot_rom_request);
	GB_set_color_correction_mode(gb, GB_COLOR_CORRECTION_DISABLED);
	GB_set_rgb_encode_callback(gb, encode_rgb);
	GB_set_palette(gb, &GB_PALETTE_GREY);
	GB_set_border_mode(gb, GB_BORDER_NEVER);
	GB_set_pixels_output(gb, pixels);
	GB_set_emulate_joypad_bouncing(gb, false);
	if (GB_load_rom(gb, argv[1])) return 2;
	GB_random_seed(POWER_ON_SEED);
	GB_reset(gb);
	if (getenv("ZERO_RAM")) { memset(gb->ram, 0, gb->ram_size); memset(gb->hram, 0, sizeof(gb->hram)); memset(gb->oam, 0, sizeof(gb->oam)); }
	if (shot_every) GB_set_vblank_callback(gb, on_vblank_shot);
	else { GB_set_vblank_callback(gb, on_vblank); GB_set_execution_callback(gb, on_exec); }
	GB_set_rtc_mode(gb, GB_RTC_MODE_ACCURATE);
	while (frames_done <= trace_frame) ticks += GB_run(gb);
	return 0;
}
