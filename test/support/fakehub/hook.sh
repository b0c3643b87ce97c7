# fakehub's pre-receive and post-receive hooks (git-http.ts writes each with its settings above this
# line: phase, the fake's host and port, the hook path, the secret and the repository).
# pre-receive computes whether each update is a fast-forward (inside git's quarantine, where the new
# objects are) and asks the fake; post-receive tells the fake what moved. HTTP/1.0 through bash's
# /dev/tcp; the fake answers `ok` or `refused`, then GitHub's lines, which go to the pusher.
export LC_ALL=C
json() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
updates=''
while read -r old new ref; do
  ff=null
  if [ "$phase" = pre-receive ] && [[ ! $old =~ ^0+$ && ! $new =~ ^0+$ ]]; then
    if git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then ff=true; else ff=false; fi
  fi
  updates+="${updates:+,}{\"ref\":$(json "$ref"),\"oldSha\":\"$old\",\"newSha\":\"$new\",\"fastForward\":$ff}"
done
actor=null
[ -n "${FAKEHUB_ACTOR:-}" ] && actor=$(json "$FAKEHUB_ACTOR")
body="{\"phase\":\"$phase\",\"repository\":$(json "$repository"),\"actor\":$actor,\"updates\":[$updates]}"
if ! exec 3<>"/dev/tcp/$host/$port"; then
  echo "fakehub hook could not reach the fake" >&2
  exit 1
fi
printf 'POST %s?format=text HTTP/1.0\r\nHost: %s:%s\r\nContent-Type: application/json\r\nx-fakehub-hook: %s\r\nContent-Length: %d\r\n\r\n%s' \
  "$path" "$host" "$port" "$secret" "${#body}" "$body" >&3
answer='' inbody=0
while IFS= read -r line <&3 || [ -n "$line" ]; do
  line=${line%$'\r'}
  if [ "$inbody" = 0 ]; then
    [ -z "$line" ] && inbody=1
    continue
  fi
  if [ -z "$answer" ]; then
    answer=$line
    continue
  fi
  printf '%s\n' "$line" >&2
done
[ "$answer" = ok ]
