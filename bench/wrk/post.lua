-- post.lua: wrk script for bench/wrk/run.sh. Every request is
--
--   POST <path of the URL given to wrk>
--   Content-Type: application/json
--   <body1k.json: a clean JSON document of exactly 1024 octets, valid UTF-8,
--    already NFC, with Latin, Greek, Cyrillic and CJK text>
--
-- The request is built once by wrk from wrk.method/body/headers (no
-- request() or response() function), so the script costs wrk nothing per
-- request. The body file is $WRK_BODY when set, else body1k.json beside
-- this script. Responses are not checked here: run.sh checks with curl that
-- each route answers exactly 200 before and after the runs, and fails on
-- wrk's "Non-2xx or 3xx responses" count (status >= 400) and socket errors.

local function script_dir()
	local src = debug.getinfo(1, "S").source
	if src:sub(1, 1) == "@" then
		return src:sub(2):match("^(.*/)") or "./"
	end
	return "./"
end

local path = os.getenv("WRK_BODY") or (script_dir() .. "body1k.json")
local f = assert(io.open(path, "rb"))
local body = f:read("*a")
f:close()
if #body ~= 1024 then
	error(path .. ": " .. #body .. " octets, want 1024")
end

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
