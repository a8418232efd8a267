/* record's output formats and the files they are written to (cmd_record.c). */
#ifndef PPROBE_RECORD_OUTPUTS_H
#define PPROBE_RECORD_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

/* The output formats: -o FILE picks one by FILE's ending, --format by name. */
enum out_format { OUT_FOLDED, OUT_SVG, OUT_PPROF, OUT_SPEEDSCOPE, OUT_NR };
struct out_format_def {
	const char *name;
	const char *exts[3];	/* the first is added to a name that has none of them */
};
extern const struct out_format_def out_formats[OUT_NR];
#define OUT_FORMAT_NAMES "folded, svg, pprof, speedscope"

struct output {
	const char *name;	/* -o's argument */
	enum out_format fmt;
};

/* The format a file's name asks for: by its ending, else folded. */
enum out_format format_of_name(const char *name);
/* NAME ends in an extension record does not write (out.json, x.html):
 * refused rather than written as folded text under a name that says
 * otherwise. No extension ("out", "-", a device) is folded. */
bool name_has_other_ext(const char *name);
/* Every extension record writes, from out_formats, as a message lists
 * them: ".folded, .svg, .pb.gz (.pb, .pprof) and .speedscope.json". */
void out_format_exts(char *buf, size_t len);
/* -o FILE for one event; FILE's stem + ".EVENT" + its extension for each of
 * several (malloc'd). */
char *output_name(const struct output *out, const char *event, bool several);

#endif
