#include "kallsyms_line.h"

#include <string.h>

#include "ascii.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

bool kallsyms_line_parse(const char *s, size_t len, struct kallsyms_line *l)
{
	size_t i = 0, start;
	uint64_t addr = 0;
	int d;

	while (len > 0 && is_space(s[len - 1])) /* a copy with CRLF ends */
		len--;
	/* The address: at most 64 bits of hex, as %px prints it. */
	for (; i < len && (d = hex_value(s[i])) >= 0; i++) {
		if (i == 16)
			return false;
		addr = addr << 4 | (uint64_t)d;
	}
	if (i == 0 || i == len || !is_blank(s[i]))
		return false;
	while (i < len && is_blank(s[i]))
		i++;
	if (i + 1 >= len || is_space(s[i]) || !is_blank(s[i + 1]))
		return false;
	l->addr = addr;
	l->type = s[i];
	for (i += 2; i < len && is_blank(s[i]); i++)
		;
	start = i;
	while (i < len && !is_space(s[i]))
		i++;
	if (i == start || i - start > KALLSYMS_NAME_MAX)
		return false;
	l->name = s + start;
	l->name_len = i - start;
	l->module = "";
	l->module_len = 0;
	while (i < len && is_blank(s[i]))
		i++;
	if (i == len)
		return true;
	/* "[MODULE]", and nothing after it. */
	const char *close = memchr(s + i, ']', len - i);
	if (s[i] != '[' || !close || close == s + i + 1 || (size_t)(close - s) + 1 != len ||
	    (size_t)(close - s) - i - 1 > KALLSYMS_MODULE_MAX)
		return false;
	l->module = s + i + 1;
	l->module_len = (size_t)(close - s) - i - 1;
	return true;
}

bool kallsyms_line_next_code(FILE *f, char *buf, struct kallsyms_line *l)
{
	char *const last = buf + KALLSYMS_LINE_MAX - 1;

	for (;;) {
		/* fgets() writes the last byte only when a line fills buf. */
		*last = 1;
		if (!fgets(buf, KALLSYMS_LINE_MAX, f))
			return false;
		if (*last == '\0' && last[-1] != '\n') {
			int c;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		size_t len = strlen(buf);
		if (len > 0 && buf[len - 1] == '\n')
			len--;
		if (kallsyms_line_parse(buf, len, l) &&
		    (l->type == 't' || l->type == 'T' || l->type == 'w' || l->type == 'W'))
			return true;
	}
}
