#!/bin/sh
# test-fake-mattermost.sh: the fake Mattermost server as a program, as a
# test that runs the bridge as a process uses it: it prints its port,
# answers the API with the token and refuses it without, takes scripting
# under /fake/, logs each API request, and stops on SIGTERM.
#
#	test-fake-mattermost.sh BUILD/tests/bxbridge/fake-mattermost/fake-mattermost
set -eu

bin=$1
token=faketoken00000000000000000
owner=owner000000000000000000000
dir=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$bin" --log "$dir/log" > "$dir/port" &
pid=$!
# Wait for the port line, at most 30 s.
tries=0
until grep -q '^[0-9][0-9]*$' "$dir/port" 2>/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -le 300 ] || fail "no port line from fake-mattermost in 30 s"
	kill -0 "$pid" 2>/dev/null || fail "fake-mattermost exited at start"
	sleep 0.1
done
url=http://127.0.0.1:$(cat "$dir/port")

api() {
	curl -s --max-time 20 -H "Authorization: Bearer $token" "$@"
}

api "$url/api/v4/users/me" | grep -q '"is_bot":true' ||
	fail "GET /api/v4/users/me did not answer the bot"
code=$(curl -s --max-time 20 -o /dev/null -w '%{http_code}' \
	"$url/api/v4/users/me")
[ "$code" = 401 ] || fail "no token: HTTP $code, not 401"

dm=$(api -d "[\"bot0000000000000000000000a\",\"$owner\"]" \
	"$url/api/v4/channels/direct" | sed 's/^{"id":"\([a-z0-9]*\)".*/\1/')
post=$(api -d "{\"channel_id\":\"$dm\",\"message\":\"pending\"}" \
	"$url/api/v4/posts" | sed 's/^{"id":"\([a-z0-9]*\)".*/\1/')
[ ${#post} -eq 26 ] || fail "POST /api/v4/posts gave no post id"

curl -s --max-time 20 -d "{\"user_id\":\"$owner\",\"root_id\":\"$post\",\
\"message\":\"approve\"}" "$url/fake/reply" | grep -q '"message":"approve"' ||
	fail "/fake/reply did not post the reply"
api "$url/api/v4/posts/$post/thread" | grep -q '"message":"approve"' ||
	fail "the thread has no reply"
curl -s --max-time 20 -d '{"kind":"rate","count":1,"reset":4}' \
	"$url/fake/fail" > /dev/null
api -i "$url/api/v4/users/me" | tr -d '\r' > "$dir/limited"
grep -q '^HTTP/1.1 429' "$dir/limited" || fail "/fake/fail gave no 429"
grep -q '^X-Ratelimit-Reset: 4$' "$dir/limited" ||
	fail "the 429 has no X-Ratelimit-Reset: 4"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "fake-mattermost exited $status on SIGTERM"
[ "$(wc -l < "$dir/log")" -eq 6 ] ||
	fail "the log has $(wc -l < "$dir/log") lines, not the 6 API requests"
grep -q "\"path\":\"/api/v4/posts\",\"body\":{\"channel_id\":\"$dm\"" \
	"$dir/log" || fail "the log lacks the post's request"
echo "test-fake-mattermost: ok"
