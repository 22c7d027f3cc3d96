/work/main/userspace/check/lib/pushpop_check.o: \
 /work/main/userspace/lib/pushpop_check.c \
 /work/main/userspace/include/nanograph.h
/work/main/userspace/include/nanograph.h:
