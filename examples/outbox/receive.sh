#!/bin/sh
# The "server" of examples/outbox: a file drop. `receive.sh INBOX ID ACTION JSON` takes one entry into the
# folder INBOX as ID.json, once per id (a second delivery of an id is answered ok and changes nothing).
#   exit 0   taken (or taken before)
#   exit 65  refused for good, the reason on stdout: a title that says "secret"
#   exit 75  not now (a file INBOX/offline exists): the outbox tries again later
inbox=$1 id=$2 action=$3 json=$4
mkdir -p "$inbox" || exit 75
if [ -e "$inbox/offline" ]; then echo "the inbox is offline"; exit 75; fi
[ -e "$inbox/$id.json" ] && exit 0
case $json in
  *'"title":"'*[Ss]ecret*) echo "titles may not say secret"; exit 65 ;;
esac
printf '{"id":%s,"action":"%s","payload":%s}\n' "$id" "$action" "$json" > "$inbox/$id.tmp" && mv "$inbox/$id.tmp" "$inbox/$id.json"
