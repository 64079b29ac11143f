-- syntax, clean
function event()
   local x = 1
   return x == 2
end
