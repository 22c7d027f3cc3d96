/work/main/userspace/check/tests/test_pushpop.o: \
 /work/main/selftests/host/test_pushpop.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
