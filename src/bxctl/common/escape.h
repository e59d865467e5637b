/*
 * escape.h: printing text that came from the model, a tool or a peer as
 * data, so that nothing in it can move the cursor, change colours, hide
 * text or reorder what the owner reads (design section 9, issue 8).
 *
 * Valid UTF-8 passes through unchanged, except:
 *	U+0000 to U+001F, U+007F, U+0080 to U+009F	\u00XX
 *	U+061C, U+200B to U+200F, U+2028, U+2029,
 *	U+202A to U+202E, U+2060 to U+2064,
 *	U+2066 to U+2069, U+FEFF			\uXXXX
 * and every byte that does not start a valid UTF-8 sequence (a stray
 * continuation byte, a truncated or overlong sequence, a surrogate, a code
 * point past U+10FFFF) is \xHH, one per byte. Hex digits are lowercase.
 * The backslash itself is not escaped: the output is for reading, and in
 * JSON text (tool arguments) a raw control and its \u00XX escape mean the
 * same string anyway.
 *
 * The output never holds a byte below 0x20, 0x7F, a C1 control, invalid
 * UTF-8 or one of the characters above; it is at most ESCAPE_GROWTH times
 * as long as the input.
 *
 * Text that arrives in pieces (the model's text_delta events) is escaped
 * with an escape_stream, character by character across the pieces: a
 * piece that ends inside a UTF-8 sequence keeps those bytes until the
 * next piece completes or breaks it, so the output is byte for byte
 * escape_write() of the pieces joined, however they were cut. A lone ESC
 * is a character, escaped at once, so "\x1b" then "[2J" prints as
 * "\u001b[2J".
 *
 * Ownership: escape_string() returns a malloc'd string the caller frees;
 * escape_buf() writes into the caller's buffer; nothing else allocates.
 */
#ifndef BXCTL_ESCAPE_H
#define BXCTL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most output bytes one input byte can become ("\u001b"). */
#define ESCAPE_GROWTH	6

/* The bytes of a UTF-8 sequence that one piece ended inside of. */
struct escape_stream {
	unsigned char	es_held[3];
	size_t		es_nheld;
};

/* Whether code point cp is printed as an escape. */
bool	escape_needed(uint32_t cp);

/*
 * Writes the escaped form of s[0..len) to fp. Returns 0, or -1 if a write
 * failed (errno set by stdio).
 */
int	escape_write(FILE *fp, const char *s, size_t len);

/* escape_write() of a NUL-terminated string. */
int	escape_puts(FILE *fp, const char *s);

/*
 * A problem in a file, as FILE:LINE: PROBLEM (FILE: PROBLEM without a
 * line) and a newline, file and problem escaped: how bxctl shows a grant
 * file's problem wherever it lists one.
 */
void	escape_problem(FILE *, const char *file, bool has_line,
	    uint64_t line, const char *problem);

/*
 * "<done> <name> (<dir>/<name>.toml)" and a newline, dir escaped: how
 * bxctl says it wrote one of the owner's files ("added grant", "replaced
 * secret"). name is one bxctl checked, a grant id or a secret name.
 */
void	escape_written(FILE *, const char *done, const char *name,
	    const char *dir);

/* Starts a stream: nothing held. */
void	escape_stream_init(struct escape_stream *);

/*
 * Writes the escaped form of the next piece s[0..len) to fp, holding back
 * a UTF-8 sequence that the piece ends inside of. Returns 0, or -1 if a
 * write failed.
 */
int	escape_stream_write(struct escape_stream *, FILE *fp, const char *s,
	    size_t len);

/*
 * The stream has ended: bytes still held are an incomplete sequence,
 * written as \xHH each. Returns 0, or -1 if a write failed.
 */
int	escape_stream_end(struct escape_stream *, FILE *fp);

/* Whether s[0..len) is valid UTF-8 (shortest forms, no surrogates). */
bool	escape_valid_utf8(const char *s, size_t len);

/*
 * The escaped form of s[0..len) as a new NUL-terminated string, or NULL if
 * memory ran out (errno ENOMEM).
 */
char	*escape_string(const char *s, size_t len);

/*
 * The escaped form of the NUL-terminated s into buf (size bytes, at least
 * 4), for one-line messages: if it does not fit, it is cut after a whole
 * character or escape and ends in "...". Returns buf.
 */
char	*escape_buf(const char *s, char *buf, size_t size);

#endif
