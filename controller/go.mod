module github.com/jobsync/jobsync/controller

go 1.26.0

replace github.com/jobsync/jobsync => ../
