\set a nosuchfunc(1)
