/*
 * json.h: the strict JSON helpers every codec of libboxproto shares (the
 * message codec, the audit record codec): parsing one object with duplicate
 * keys and deep nesting refused, checking an object's keys against the
 * kind's field list, typed getters whose errors name the key, and the
 * deterministic compact encoding of baseline.md section 3.
 *
 * Errors name the key: `missing field "session"`, `unknown field "x"`,
 * `field "call": expected a string`. A caller decoding a nested object
 * puts the outer key in front with bx_error_prefix().
 *
 * Ownership: bx_json_parse() hands the caller a new reference (json_decref
 * it). Getters return borrowed values (strings, objects, arrays) that live
 * as long as the object they came from; copy them to keep them. The *_new
 * constructors return a new reference or NULL, and bx_json_set() steals the
 * value it is given, also when it fails. bx_json_encode_line() returns a
 * malloc'd buffer the caller frees.
 *
 * JSON strings with U+0000 are refused at parse time (jansson's default), so
 * every decoded string is a C string. Integers are jansson's json_int_t
 * (64-bit signed): a u64 field holds 0 to INT64_MAX.
 */
#ifndef BX_JSON_H
#define BX_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/error.h"
#include "proto/types.h"

/*
 * The deepest nesting of arrays and objects a peer may send; the top-level
 * object is depth 1. No message or audit record goes past 3. Checked before
 * jansson parses (jansson's own limit is 2048, and recursive).
 */
#define BX_JSON_MAX_DEPTH	32

/*
 * Parses buf (len bytes, no NUL needed) as exactly one JSON object, with
 * JSON_REJECT_DUPLICATES and the depth limit. Whitespace around it is
 * allowed. On success *ret is a new reference.
 */
int	bx_json_parse(const char *buf, size_t len, json_t **ret,
	    struct bx_error *);

/* Fails if buf nests arrays and objects deeper than max. */
int	bx_json_depth_check(const char *buf, size_t len, int max,
	    struct bx_error *);

/*
 * Fails with `unknown field "k"` for the first key of obj not in fields, a
 * NULL-terminated list.
 */
int	bx_json_check_fields(const json_t *obj, const char *const *fields,
	    struct bx_error *);

/*
 * Typed getters for required fields. Each fails with `missing field "key"`
 * if the key is absent and `field "key": expected ...` if the value has the
 * wrong type or form (null included); *ret is written only on success.
 */
int	bx_json_string(const json_t *obj, const char *key, const char **ret,
	    struct bx_error *);

/*
 * Getters for optional fields (Option<T>). baseline.md section 1: an
 * absent optional field decodes as null, so absent and null are the same
 * value here; anything else must have the type of T.
 */
/* A string, null or absent; null and absent give *ret = NULL. */
int	bx_json_string_or_null(const json_t *obj, const char *key,
	    const char **ret, struct bx_error *);
/* A u64, null or absent; *ret_has says which, *ret is set only if it is. */
int	bx_json_u64_or_null(const json_t *obj, const char *key, bool *ret_has,
	    uint64_t *ret, struct bx_error *);
/* A Hash32, null or absent, like bx_json_u64_or_null. */
int	bx_json_hash_or_null(const json_t *obj, const char *key, bool *ret_has,
	    struct bx_hash *ret, struct bx_error *);

/* The getters for required fields, continued. */
int	bx_json_u64(const json_t *obj, const char *key, uint64_t *ret,
	    struct bx_error *);
int	bx_json_i64(const json_t *obj, const char *key, int64_t *ret,
	    struct bx_error *);
int	bx_json_bool(const json_t *obj, const char *key, bool *ret,
	    struct bx_error *);
/* A Timestamp string, as milliseconds since the epoch. */
int	bx_json_time(const json_t *obj, const char *key, int64_t *ret,
	    struct bx_error *);
int	bx_json_hash(const json_t *obj, const char *key, struct bx_hash *ret,
	    struct bx_error *);
int	bx_json_class(const json_t *obj, const char *key, enum bx_class *ret,
	    struct bx_error *);
int	bx_json_deny(const json_t *obj, const char *key, enum bx_deny *ret,
	    struct bx_error *);
/* A DecisionRecord object, tagged "outcome". */
int	bx_json_outcome(const json_t *obj, const char *key,
	    struct bx_outcome *ret, struct bx_error *);
/* Borrowed nested values. */
int	bx_json_object(const json_t *obj, const char *key, json_t **ret,
	    struct bx_error *);
int	bx_json_array(const json_t *obj, const char *key, json_t **ret,
	    struct bx_error *);

/*
 * Value constructors for encoding; each returns a new reference, or NULL
 * if the value cannot be encoded (a Timestamp out of range, a u64 past
 * INT64_MAX, a string that is not UTF-8) or memory ran out.
 */
json_t	*bx_json_string_new(const char *);		/* NULL gives null */
json_t	*bx_json_u64_new(uint64_t);
json_t	*bx_json_time_new(int64_t ms);
json_t	*bx_json_hash_new(const struct bx_hash *);
json_t	*bx_json_outcome_new(const struct bx_outcome *);

/*
 * Appends key: value to obj (insertion order is the encoded order). Steals
 * value. Fails with `field "key": cannot be encoded` if value is NULL.
 */
int	bx_json_set(json_t *obj, const char *key, json_t *value,
	    struct bx_error *);

/*
 * The deterministic compact form: JSON_COMPACT | JSON_PRESERVE_ORDER, no
 * escaping of '/' or non-ASCII, then "\n". jansson writes '"' and '\\' as
 * \" and \\, the controls \b \f \n \r \t in their short forms, every other
 * character below U+0020 as \u00XX with uppercase hex digits (\u001F), and
 * everything else (U+007F, U+0080 to U+009F, U+2028 included) as its raw
 * UTF-8 bytes. Returns a malloc'd, NUL-terminated buffer; *ret_len counts
 * the newline but not the NUL.
 */
/* bx_json_encode_line's first buffer: an audit record or an answer fits. */
#define BX_JSON_LINE_FIRST	1024

char	*bx_json_encode_line(const json_t *, size_t *ret_len,
	    struct bx_error *);

#endif
