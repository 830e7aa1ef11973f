#include "python_lines.h"

#include <stdbool.h>

/* 3.10: (bytes, line delta) pairs from address 0; a delta of -128 means
 * the range has no line. */
static int32_t line_310(const uint8_t *t, size_t len, int32_t first, uint64_t at)
{
	int64_t line = first;
	uint64_t addr = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint64_t end = addr + t[i];
		int8_t delta = (int8_t)t[i + 1];
		bool none = delta == -128;

		if (!none)
			line += delta;
		if (at >= addr && at < end)
			return none || line <= 0 || line > INT32_MAX ? 0 : (int32_t)line;
		addr = end;
	}
	return 0;
}

/* A varint of the location table: 6 bits a byte, bit 6 saying more come. */
static bool varint(const uint8_t *t, size_t len, size_t *i, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*i < len && shift < 36) {
		uint8_t b = t[(*i)++];
		*v |= (uint64_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			return true;
	}
	return false;
}

/* 3.11 and later: entries of (1, code, length - 1) in their first byte,
 * lengths in 2-byte code units; codes 13 and 14 give the line delta as a
 * signed varint, 11 and 12 as 1 and 2, 15 says the range has no line. */
static int32_t line_311(const uint8_t *t, size_t len, int32_t first, uint64_t at)
{
	int64_t line = first;
	uint64_t addr = 0;

	for (size_t i = 0; i < len;) {
		uint8_t b = t[i];
		unsigned code = (b >> 3) & 15;
		uint64_t end = addr + 2 * ((uint64_t)(b & 7) + 1), u;
		size_t j = i + 1;

		if (!(b & 0x80))
			return 0; /* not the start of an entry: corrupt */
		if (code == 13 || code == 14) {
			if (!varint(t, len, &j, &u))
				return 0;
			line += (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
		} else if (code == 11 || code == 12) {
			line += code - 10;
		}
		if (at >= addr && at < end)
			return code == 15 || line <= 0 || line > INT32_MAX ? 0 : (int32_t)line;
		addr = end;
		/* The entry's other bytes have bit 7 clear. */
		for (i++; i < len && !(t[i] & 0x80); i++)
			;
	}
	return 0;
}

int32_t python_line(uint32_t v, const uint8_t *table, size_t len, int32_t first, uint64_t at)
{
	if (!table || !len)
		return 0;
	return v == PY_310 ? line_310(table, len, first, at) : line_311(table, len, first, at);
}
