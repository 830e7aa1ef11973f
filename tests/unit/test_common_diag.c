/*
 * printable() (common/diag.c): names and paths the profiled programs chose
 * cannot steer the terminal they are printed on, and keep every other byte.
 */
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "unit.h"

static void check(const char *in, size_t n, const char *want)
{
	char buf[64];

	memcpy(buf, in, n);
	printable(buf, n);
	CHECK(memcmp(buf, want, n) == 0);
	if (memcmp(buf, want, n) != 0)
		printf("#   got \"%.*s\", want \"%.*s\"\n", (int)n, buf, (int)n, want);
}

TEST(controls_become_question_marks_byte_for_byte)
{
	/* C0, DEL, OSC and CSI sequences (a title change, a screen clear). */
	check("a\nb\tc\x7f", 6, "a?b?c?");
	check("\x1b]0;owned\x07", 10, "?]0;owned?");
	check("x\x1b[2J", 5, "x?[2J");
	/* C1 controls: U+009B (CSI) encoded, and as a bare byte. */
	check("a\xc2\x9b" "2J", 5, "a??2J");
	check("a\x9b" "2J", 4, "a?2J");
	check("\xc2\x85", 2, "??");
}

TEST(other_text_stays)
{
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
	check("std::vector<int>::push_back", 27, "std::vector<int>::push_back");
	/* U+00A0 is not a control; invalid UTF-8 past 0x9F is kept as it is. */
	check("\xc2\xa0\xff\xfe", 4, "\xc2\xa0\xff\xfe");
}

TEST(every_byte_at_every_place_of_a_word)
{
	/* Plain ASCII is skipped eight bytes at a time: a byte to clean must
	 * be found in any place of a word, and of the tail after the words. */
	for (int at = 0; at < 19; at++) {
		for (int b = 0; b < 256; b++) {
			char in[19], want[19];
			bool control = b < 0x20 || b == 0x7f || (b >= 0x80 && b < 0xa0);

			memset(in, 'x', sizeof(in));
			in[at] = (char)b;
			memcpy(want, in, sizeof(in));
			want[at] = control ? '?' : (char)b;
			check(in, sizeof(in), want);
		}
	}
}
