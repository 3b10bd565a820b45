// sameboy-run: the SameBoy side of `tools/sameboy-probe.sh`. Runs a ROM in SameBoy from its own
// boot ROM, optionally with buttons pressed as an input script says, with the cartridge clock
// counting emulated time (GB_RTC_MODE_ACCURATE: SameBoy's default follows the host's clock, so a
// probe that lets an MBC3 clock run would read what the host did), and writes the screen.
// A hand tool; CI never builds SameBoy.
//
// Usage: sameboy-run ROM MODEL FRAMES SCRIPT|- OUT.png
//   Powers MODEL (DMG = DMG-B, CGB = CGB-E) on as `tools/sameboy-power-on.h` says (SameBoy's
//   own boot ROM, as ../shared/peers/sameboy-bess does), runs FRAMES frames and writes the
//   last one to OUT.png.
// SCRIPT (or - for none) is a Backspin input script (`backspin movie record --inputs`), of which
// this reads the lines `@CYCLE BUTTONS...` (M-cycles of 4 MHz / 4 from power-on; buttons a b
// select start right left up down, or none), comments (#) and `end N`; any other line is an
// error. A line applies at the first instruction boundary at or after its cycle, as in
// Backspin. Joypad bouncing is off, so a press is one clean edge.
//
// Build (against the tree ../shared/peers/build-sameboy.sh makes, e.g. /work/sameboy-build):
//   cc -O2 -std=gnu11 -Wall -Wextra -I"$B/SameBoy" -o "$B/sameboy-run" tools/sameboy-run.c
//      "$B/SameBoy/build/lib/libsameboy.a" $(pkg-config --cflags --libs libpng) -lm
// (tools/sameboy-probe.sh does this on first use.) Boot ROMs come from $SAMEBOY_BOOT_ROMS.

#include <Core/gb.h>

#include <ctype.h>
#include <png.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sameboy-power-on.h"

#define MAX_LINES 65536

static uint32_t pixels[256 * 224];
static long frames_done;

struct line {
	uint64_t cycle;
	uint8_t buttons;
};
static struct line lines[MAX_LINES];
static size_t line_count;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sameboy-run: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

// Button names in Backspin's `Buttons` bit order, which is SameBoy's key mask order too.
static const char *const button_names[8] = {"right", "left", "up", "down", "a", "b", "select", "start"};

static void parse_script(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) die("cannot read %s", path);
	char text[1024];
	unsigned number = 0;
	uint64_t last = 0;
	while (fgets(text, sizeof(text), f)) {
		number++;
		char *hash = strchr(text, '#');
		if (hash) *hash = 0;
		char *word = strtok(text, " \t\r\n");
		if (!word) continue;
		if (!strcasecmp(word, "end")) continue;
		if (word[0] != '@') die("%s:%u: only `@CYCLE buttons` lines are supported here", path, number);
		char *end;
		uint64_t cycle = strtoull(word + 1, &end, 10);
		if (*end || end == word + 1) die("%s:%u: bad cycle %s", path, number, word);
		if (cycle < last) die("%s:%u: cycles must not go back", path, number);
		last = cycle;
		uint8_t mask = 0;
		bool any = false;
		while ((word = strtok(NULL, " \t\r\n"))) {
			any = true;
			if (!strcasecmp(word, "none")) continue;
			unsigned i = 0;
			while (i < 8 && strcasecmp(word, button_names[i])) i++;
			if (i == 8) die("%s:%u: %s is not a button (only buttons are supported here)", path, number, word);
			mask |= 1 << i;
		}
		if (!any) die("%s:%u: name buttons or none", path, number);
		if (line_count == MAX_LINES) die("%s: more than %u lines", path, MAX_LINES);
		lines[line_count++] = (struct line) {cycle, mask};
	}
	fclose(f);
}

static void on_vblank(GB_gameboy_t *gb, GB_vblank_type_t type)
{
	(void) gb;
	(void) type;
	frames_done++;
}

static void write_png(const char *path)
{
	uint8_t *rgb = malloc(160 * 144 * 3);
	for (unsigned i = 0; i < 160 * 144; i++) {
		rgb[i * 3 + 0] = pixels[i] >> 16;
		rgb[i * 3 + 1] = pixels[i] >> 8;
		rgb[i * 3 + 2] = pixels[i];
	}
	png_image img;
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	img.width = 160;
	img.height = 144;
	img.format = PNG_FORMAT_RGB;
	if (!png_image_write_to_file(&img, path, 0, rgb, 0, NULL)) die("cannot write %s: %s", path, img.message);
	free(rgb);
}

int main(int argc, char **argv)
{
	if (argc != 6) die("usage: sameboy-run ROM MODEL FRAMES SCRIPT|- OUT.png");
	GB_model_t model = power_on_model(argv[2]);
	long frames = strtol(argv[3], NULL, 10);
	if (frames <= 0) die("bad frame count %s", argv[3]);
	if (strcmp(argv[4], "-")) parse_script(argv[4]);

	GB_gameboy_t *gb = power_on(argv[1], model, pixels);
	GB_set_vblank_callback(gb, on_vblank);

	// GB_run returns 8 MHz ticks at either speed: 8 per M-cycle of the single-speed clock.
	uint64_t ticks = 0;
	size_t next = 0;
	while (frames_done < frames) {
		while (next < line_count && ticks / 8 >= lines[next].cycle) {
			GB_set_key_mask(gb, (GB_key_mask_t) lines[next].buttons);
			next++;
		}
		ticks += GB_run(gb);
	}
	write_png(argv[5]);
	GB_free(gb);
	GB_dealloc(gb);
	return 0;
}
