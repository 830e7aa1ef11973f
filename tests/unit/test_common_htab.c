/* The shared hash table: counting, identity of keys, growth, order. */
#include "unit.h"

#include "htab.h"

TEST(upsert_counts_and_finds)
{
	struct htab *h = htab_new();
	bool created;
	struct htab_entry *e;

	e = htab_upsert(h, "a;b;c", 5, &created);
	CHECK(created);
	e->val.u += 3;
	e = htab_upsert(h, "a;b;c", 5, &created);
	CHECK(!created);
	e->val.u += 4;
	CHECK_INT(htab_find(h, "a;b;c", 5)->val.u, 7);
	CHECK(htab_find(h, "a;b", 3) == NULL);
	/* A key is its bytes and length, not a C string. */
	CHECK(htab_find(h, "a;b;c\0", 6) == NULL);
	CHECK_INT(htab_count(h), 1);
	htab_free(h);
}

TEST(growth_keeps_every_key_in_insertion_order)
{
	struct htab *h = htab_new();
	char key[32];

	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "stack-%d", i);
		htab_upsert(h, key, (size_t)n, NULL)->val.u = (uint64_t)i;
	}
	CHECK_INT(htab_count(h), 100000);
	for (int i = 0; i < 100000; i += 997) {
		int n = snprintf(key, sizeof(key), "stack-%d", i);
		struct htab_entry *e = htab_find(h, key, (size_t)n);
		CHECK(e && e->val.u == (uint64_t)i);
	}
	struct htab_entry *all = htab_entries(h);
	CHECK(all[12345].len == 11 && memcmp(all[12345].key, "stack-12345", 11) == 0);
	CHECK(htab_bytes(h) > 100000 * 11);
	htab_free(h);
}

TEST(keys_are_copied)
{
	struct htab *h = htab_new();
	char key[] = "transient";

	htab_upsert(h, key, sizeof(key) - 1, NULL);
	memset(key, 'x', sizeof(key) - 1);
	CHECK(htab_find(h, "transient", 9) != NULL);
	CHECK_INT(htab_upsert(h, "", 0, NULL)->val.u, 0); /* the empty key is a key */
	CHECK_INT(htab_count(h), 2);
	htab_free(h);
}

TEST(remove_keeps_every_other_key_reachable)
{
	struct htab *h = htab_new();
	char key[32];
	int n = 5000;

	for (int i = 0; i < n; i++) {
		int len = snprintf(key, sizeof(key), "k%d", i);
		htab_upsert(h, key, (size_t)len, NULL)->val.u = (uint64_t)i;
	}
	/* Remove every third key, then check all of them. */
	for (int i = 0; i < n; i += 3) {
		int len = snprintf(key, sizeof(key), "k%d", i);
		CHECK(htab_remove(h, key, (size_t)len));
		CHECK(!htab_remove(h, key, (size_t)len));
	}
	CHECK_INT(htab_count(h), n - (n + 2) / 3);
	for (int i = 0; i < n; i++) {
		int len = snprintf(key, sizeof(key), "k%d", i);
		struct htab_entry *e = htab_find(h, key, (size_t)len);
		if (i % 3 == 0)
			CHECK(e == NULL);
		else
			CHECK(e && e->val.u == (uint64_t)i);
	}
	/* Removed keys can come back. */
	htab_upsert(h, "k0", 2, NULL)->val.u = 42;
	CHECK_INT(htab_find(h, "k0", 2)->val.u, 42);
	htab_free(h);
}

/* prof-sample's table of processes on a host that forks all day: a
 * million pids come and go, a hundred live at a time.  The table stays
 * the size of what it holds, and every key in it still finds its value
 * after the keys have moved. */
TEST(churn_keeps_the_table_the_size_of_what_it_holds)
{
	struct htab *h = htab_new();
	char key[32];
	size_t most = 0;

	for (int i = 0; i < 1000000; i++) {
		int len = snprintf(key, sizeof(key), "pid-%d", i);
		htab_upsert(h, key, (size_t)len, NULL)->val.u = (uint64_t)i;
		if (i >= 100) {
			len = snprintf(key, sizeof(key), "pid-%d", i - 100);
			CHECK(htab_remove(h, key, (size_t)len));
		}
		if (htab_bytes(h) > most)
			most = htab_bytes(h);
	}
	CHECK_INT(htab_count(h), 100);
	/* Without compaction the keys alone were 16 MB. */
	CHECK(most < 64 * 1024);
	for (int i = 1000000 - 100; i < 1000000; i++) {
		int len = snprintf(key, sizeof(key), "pid-%d", i);
		struct htab_entry *e = htab_find(h, key, (size_t)len);
		CHECK(e && e->val.u == (uint64_t)i && e->len == (uint32_t)len &&
		      memcmp(e->key, key, (size_t)len) == 0);
	}
	htab_free(h);
}

static int freed;

static void count_free(void *p)
{
	freed++;
	free(p);
}

TEST(free_values_frees_each_value_once)
{
	struct htab *h = htab_new();
	char key[32];

	for (int i = 0; i < 100; i++) {
		int len = snprintf(key, sizeof(key), "k%d", i);
		htab_upsert(h, key, (size_t)len, NULL)->val.p = malloc(16);
	}
	/* A removed entry's value is the caller's to free. */
	free(htab_find(h, "k7", 2)->val.p);
	htab_remove(h, "k7", 2);
	htab_free_values(h, count_free);
	CHECK_INT(freed, 99);
	htab_free_values(NULL, count_free);
	CHECK_INT(freed, 99);
}

/* Drops the entries whose value is odd, and every key longer than the
 * stack copy htab_remove_if makes of short ones. */
static bool odd_or_long(struct htab_entry *e, void *arg)
{
	(*(int *)arg)++;
	return (e->val.u & 1) || e->len > 64;
}

TEST(remove_if_removes_exactly_what_it_is_told)
{
	struct htab *h = htab_new();
	char key[200];
	int asked = 0;

	for (int i = 0; i < 1000; i++) {
		int len = snprintf(key, sizeof(key), "%0*d", i % 10 == 0 ? 100 : 8, i);
		htab_upsert(h, key, (size_t)len, NULL)->val.u = (uint64_t)i;
	}
	/* 500 odd, and the 100 (even) of 100-byte keys. */
	CHECK_INT(htab_remove_if(h, odd_or_long, &asked), 600);
	CHECK_INT(asked, 1000);
	CHECK_INT(htab_count(h), 400);
	for (int i = 0; i < 1000; i++) {
		int len = snprintf(key, sizeof(key), "%0*d", i % 10 == 0 ? 100 : 8, i);
		struct htab_entry *e = htab_find(h, key, (size_t)len);
		CHECK((e != NULL) == (i % 2 == 0 && i % 10 != 0));
		CHECK(!e || e->val.u == (uint64_t)i);
	}
	CHECK_INT(htab_remove_if(h, odd_or_long, &asked), 0);
	htab_free(h);
}
