-- syntax: a syntax error, with file and line
function event()
   local x = = 1 -- lint: syntax
end
