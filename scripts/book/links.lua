-- links.lua: the pandoc filter of `make book` (scripts/book/build_book.py). It turns the links of the text as
-- written for GitHub (paths between .md files of the repository) into links of the book, which has the same
-- folders without docs/: docs/learn/x.md is learn/x.html, LAB.md is index.html. docs/teach/the-playground.md
-- "The book".
--
--   pandoc -f gfm --lua-filter links.lua -M source=docs/learn/x.md -M files=FILE ...
--
-- source is the page's file from the repository's root. A link to
--   another chapter (../reference/the-bank.md#the-bank)  -> ../reference/the-bank.html#the-bank
--   a repository file (../../openapi.yaml)              -> ../files/openapi.yaml (the script copies it there;
--                                                          each one is written to the file named by files)
--   the playground (http://127.0.0.1:8090/?scenario=x)  -> /?scenario=x (the playground serves the book)
-- stays relative, so the book reads the same from disk (file://) and from the playground's /book/.

local source = ""
local files_out = nil
local linked_files = {}

-- "a/b/../c" -> "a/c"; nil when the path climbs above the repository's root.
local function normalize(path)
  local parts = {}
  for part in string.gmatch(path, "[^/]+") do
    if part == ".." then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif part ~= "." then
      table.insert(parts, part)
    end
  end
  return table.concat(parts, "/")
end

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or ""
end

-- The page's place in the book for a file of the repository.
local function book_path(repo_path)
  if repo_path == "LAB.md" then return "index.html" end
  local chapter = repo_path:match("^docs/(.*)%.md$")
  if chapter then return chapter .. ".html" end
  return "files/" .. repo_path
end

-- The path from the folder of the page `from` to `to`, both book paths.
local function relative(from, to)
  local from_parts, to_parts = {}, {}
  for part in string.gmatch(dirname(from), "[^/]+") do table.insert(from_parts, part) end
  for part in string.gmatch(to, "[^/]+") do table.insert(to_parts, part) end
  local common = 0
  while common < #from_parts and common < #to_parts - 1 and from_parts[common + 1] == to_parts[common + 1] do
    common = common + 1
  end
  local out = {}
  for _ = common + 1, #from_parts do table.insert(out, "..") end
  for i = common + 1, #to_parts do table.insert(out, to_parts[i]) end
  return table.concat(out, "/")
end

function Meta(meta)
  source = pandoc.utils.stringify(meta.source or "")
  if meta.files then files_out = pandoc.utils.stringify(meta.files) end
end

function Link(link)
  local target = link.target
  local playground = target:match("^http://127%.0%.0%.1:8090(/.*)$")
  if playground then
    link.target = playground
    return link
  end
  if target:match("^%a[%w+.-]*:") or target:match("^#") or target:match("^/") then return nil end
  local path, anchor = target:match("^([^#]*)(#?.*)$")
  local repo_path = normalize(dirname(source) .. "/" .. path)
  if not repo_path or repo_path == "" then return nil end
  local page = book_path(repo_path)
  if page:match("^files/") then linked_files[repo_path] = true end
  link.target = relative(book_path(source), page) .. anchor
  return link
end

function Pandoc(doc)
  if files_out then
    local out = io.open(files_out, "a")
    for path in pairs(linked_files) do out:write(path, "\n") end
    out:close()
  end
  return doc
end

return {{Meta = Meta}, {Link = Link}, {Pandoc = Pandoc}}
