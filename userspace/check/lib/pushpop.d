/work/main/userspace/check/lib/pushpop.o: \
 /work/main/userspace/lib/pushpop.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/userspace/lib/outfile.h
/work/main/userspace/include/nanograph.h:
/work/main/userspace/lib/outfile.h:
